import { Type } from 'typebox';
import { endSession } from '../../../domain/accounts/sessions.ts';
import { signInOnWebsite } from '../../../domain/accounts/sign-up.ts';
import { localPath } from '../../../web/local-path.ts';
import { loginPage } from '../../../web/pages/account-pages.ts';
import { readSecondFactorCookie, readSessionCookie, setSecondFactorCookie, setSessionCookies } from '../../cookies.ts';
import { PAGE_RESPONSE } from '../../html-reply.ts';
import { errorResponses } from '../../schemas.ts';
import type { AppServer } from '../../types.ts';
import { postedBy, visitorOf } from '../../web-visitor.ts';
import type { AccountPageKit } from './account-page-kit.ts';
import { Form, FORM_ERRORS, Redirect, text } from './account-page-kit.ts';
import { handleForm } from '../../form-refusal.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  finishWithCode,
  finishWithPasskey,
  passkeySignInOptions,
  pendingSignIn,
} from '../../../domain/accounts/second-factor-sign-in.ts';
import type { NewSession } from '../../../domain/accounts/sessions.ts';
import { lacksRequiredFactor } from '../../../domain/accounts/two-factor.ts';
import { REQUIRED_FACTOR_PAGE } from './signed-in-forms.ts';
import type { User } from '../../../domain/accounts/user.ts';
import type { FormState } from '../../../web/forms.ts';
import { secondFactorPage } from '../../../web/pages/security-pages.ts';
import { parsedAnswer } from './passkey-answer.ts';

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
          const signedIn = await signInOnWebsite(username, password, request.ip, next, deps);
          if ('secondFactor' in signedIn) {
            setSecondFactorCookie(request, reply, signedIn.secondFactor);
            return reply.redirect('/account/login/second-factor', 303);
          }
          setSessionCookies(request, reply, signedIn.session);
          return reply.redirect(await afterSignIn(signedIn.session.user, next), 303);
        },
        async (state, visitor) =>
          show(request, reply, (s) => loginPage(next, s.formToken(), state, s.context, providers), visitor),
      );
    },
  });

  /** Where a signed-in user goes: on, unless an administrator requires a second factor they lack. */
  const afterSignIn = async (user: User, next: string): Promise<string> =>
    (await lacksRequiredFactor(user, deps)) ? REQUIRED_FACTOR_PAGE : next;

  // The second step of a sign-in with a second factor (issue 53)
  const secondStep = async (request: FastifyRequest, reply: FastifyReply, state: FormState) => {
    const pending = await pendingSignIn(readSecondFactorCookie(request), deps);
    if (pending === null) return reply.redirect('/account/login', 303);
    return show(request, reply, (s) => secondFactorPage(pending, s.formToken(), state, s.context));
  };
  /** The second step's form: once `finish` checks the factor, the session's cookies and on; a refusal shows the step again. */
  const secondStepForm = (
    request: FastifyRequest,
    reply: FastifyReply,
    finish: (id: string | undefined) => Promise<{ session: NewSession; next: string }>,
  ) =>
    handleForm(
      request,
      reply,
      async () => {
        const done = await finish(readSecondFactorCookie(request));
        setSecondFactorCookie(request, reply, null);
        setSessionCookies(request, reply, done.session);
        return reply.redirect(done.next, 303);
      },
      async (state) => secondStep(request, reply, state),
    );
  const SECOND_STEP_RESPONSES = {
    ...PAGE_RESPONSE,
    ...Redirect,
    ...errorResponses(FORM_ERRORS, 'not_authenticated', 'rate_limited', 'conflict'),
  };

  app.get('/account/login/second-factor', {
    schema: { hide: true, response: { ...PAGE_RESPONSE, ...Redirect } },
    handler: async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return secondStep(request, reply, {});
    },
  });

  app.post('/account/login/second-factor', {
    schema: { hide: true, body: Form({ code: text(40) }), response: SECOND_STEP_RESPONSES },
    handler: async (request, reply) =>
      secondStepForm(request, reply, (id) => finishWithCode(id, request.body.code, request.ip, request.id, deps)),
  });

  app.post('/account/login/passkey/options', {
    schema: {
      hide: true,
      response: {
        200: Type.Object({ options: Type.Unknown() }),
        ...errorResponses(FORM_ERRORS, 'not_authenticated', 'rate_limited', 'conflict'),
      },
    },
    handler: async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return { options: await passkeySignInOptions(readSecondFactorCookie(request), deps) };
    },
  });

  app.post('/account/login/passkey', {
    schema: { hide: true, body: Form({ response: text(20_000) }), response: SECOND_STEP_RESPONSES },
    handler: async (request, reply) =>
      secondStepForm(request, reply, (id) =>
        finishWithPasskey(id, parsedAnswer(request.body.response), request.ip, request.id, deps),
      ),
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
