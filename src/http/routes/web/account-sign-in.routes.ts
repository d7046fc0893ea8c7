import { Type } from 'typebox';
import { endSession } from '../../../domain/accounts/sessions.ts';
import { signInOnWebsite } from '../../../domain/accounts/sign-up.ts';
import { localPath } from '../../../web/local-path.ts';
import { loginPage } from '../../../web/pages/account-pages.ts';
import { readSessionCookie, setSessionCookies } from '../../cookies.ts';
import { PAGE_RESPONSE } from '../../html-reply.ts';
import { errorResponses } from '../../schemas.ts';
import type { AppServer } from '../../types.ts';
import { postedBy, visitorOf } from '../../web-visitor.ts';
import type { AccountPageKit } from './account-page-kit.ts';
import { Form, FORM_ERRORS, Redirect, text } from './account-page-kit.ts';
import { handleForm } from '../../form-refusal.ts';

/** Sign-in and sign-out (`/account/login`, `/account/logout`). */
export async function accountSignInRoutes(app: AppServer, kit: AccountPageKit): Promise<void> {
  const { container, deps, providers, show } = kit;

  app.get('/account/login', {
    schema: {
      hide: true,
      querystring: Type.Object({ next: Type.Optional(text(2000)) }, { additionalProperties: true }),
      response: { ...PAGE_RESPONSE, ...Redirect, ...errorResponses('invalid_request') },
    },
    handler: async (request, reply) => {
      const next = localPath(request.query.next);
      const visitor = await visitorOf(request, container);
      if (visitor.user !== null) return reply.redirect(next, 303);
      return show(request, reply, (s) => loginPage(next, s.formToken(), {}, s.context, providers), visitor);
    },
  });

  app.post('/account/login', {
    schema: {
      hide: true,
      body: Type.Object(
        { username: text(150), password: text(1024), next: Type.Optional(text(2000)) },
        { additionalProperties: true },
      ),
      response: {
        ...PAGE_RESPONSE,
        ...Redirect,
        ...errorResponses(FORM_ERRORS, 'not_authenticated', 'email_not_verified', 'rate_limited'),
      },
    },
    handler: async (request, reply) => {
      const { username, password } = request.body;
      const next = localPath(request.body.next);
      return handleForm(
        request,
        reply,
        async () => {
          const session = await signInOnWebsite(username, password, request.ip, deps);
          setSessionCookies(request, reply, session);
          return reply.redirect(next, 303);
        },
        async (state, visitor) =>
          show(request, reply, (s) => loginPage(next, s.formToken(), state, s.context, providers), visitor),
      );
    },
  });

  app.post('/account/logout', {
    schema: { hide: true, body: Form({}), response: { ...PAGE_RESPONSE, ...Redirect, ...errorResponses(FORM_ERRORS) } },
    handler: async (request, reply) => {
      const sessionId = readSessionCookie(request);
      if (postedBy(request).user !== null && sessionId !== undefined) await endSession(sessionId, deps);
      setSessionCookies(request, reply, null);
      return reply.redirect('/', 303);
    },
  });
}
