import { requestTexts } from '../../page-context.ts';
import { readLink } from '../../../domain/accounts/account-links.ts';
import { signUp, verifyEmail } from '../../../domain/accounts/sign-up.ts';
import { messagePage, signUpPage, verifyPage } from '../../../web/pages/account-pages.ts';
import { formRefusal } from '../../form-refusal.ts';
import { PAGE_RESPONSE } from '../../html-reply.ts';
import { errorResponses } from '../../schemas.ts';
import type { AppServer } from '../../types.ts';
import type { AccountPageKit } from './account-page-kit.ts';
import { Form, FORM_ERRORS, SecretParams, text } from './account-page-kit.ts';
import { handleForm } from '../../form-refusal.ts';

/** Sign-up and the confirmation of an address (`/account/signup`, `/account/verify/…`). */
export async function accountSignUpRoutes(app: AppServer, kit: AccountPageKit): Promise<void> {
  const { deps, providers, show, linkProblem } = kit;

  app.get('/account/signup', {
    schema: { hide: true, response: PAGE_RESPONSE },
    handler: async (request, reply) =>
      show(request, reply, (s) => signUpPage(deps.signUpOpen, s.formToken(), {}, s.context, providers)),
  });

  app.post('/account/signup', {
    schema: {
      hide: true,
      body: Form({ username: text(150), email: text(254), password: text(1024) }),
      response: {
        ...PAGE_RESPONSE,
        ...errorResponses(FORM_ERRORS, 'invalid_user', 'user_exists', 'signup_closed', 'rate_limited'),
      },
    },
    handler: async (request, reply) => {
      const { username, email, password } = request.body;
      return handleForm(
        request,
        reply,
        async () => {
          await signUp(
            { username, email, password, language: requestTexts(request).language },
            { address: request.ip, requestId: request.id },
            deps,
          );
          return show(request, reply, (s) =>
            messagePage(s.context.t.site.checkInboxTitle, s.context.t.site.checkInboxSignUp(email.trim()), s.context),
          );
        },
        async (state, visitor) =>
          show(request, reply, (s) => signUpPage(deps.signUpOpen, s.formToken(), state, s.context, providers), visitor),
      );
    },
  });

  app.get('/account/verify/:secret', {
    schema: {
      hide: true,
      params: SecretParams,
      response: { ...PAGE_RESPONSE, ...errorResponses('invalid_request', 'invalid_link') },
    },
    handler: async (request, reply) => {
      try {
        await readLink(request.params.secret, 'verify-email', deps);
      } catch (error) {
        return linkProblem(request, reply, formRefusal(error, request, reply));
      }
      // A button, not a change on GET: mail scanners that open links confirm nothing.
      return show(request, reply, (s) => verifyPage(request.params.secret, s.formToken(), {}, s.context));
    },
  });

  app.post('/account/verify/:secret', {
    schema: {
      hide: true,
      params: SecretParams,
      body: Form({}),
      response: { ...PAGE_RESPONSE, ...errorResponses(FORM_ERRORS, 'invalid_link', 'conflict') },
    },
    handler: async (request, reply) =>
      handleForm(
        request,
        reply,
        async () => {
          const user = await verifyEmail(request.params.secret, { address: request.ip, requestId: request.id }, deps);
          return show(request, reply, (s) =>
            messagePage(
              s.context.t.site.verifiedTitle,
              s.context.t.site.verifiedText(user.email ?? ''),
              s.context,
              s.visitor.user === null
                ? { href: '/account/login', label: s.context.t.site.signIn }
                : { href: '/account', label: s.context.t.site.accountTitle },
            ),
          );
        },
        async (state, visitor) =>
          state.problem?.code === 'csrf_failed'
            ? show(request, reply, (s) => verifyPage(request.params.secret, s.formToken(), state, s.context), visitor)
            : linkProblem(request, reply, state),
      ),
  });
}
