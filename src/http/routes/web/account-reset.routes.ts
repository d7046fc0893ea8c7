import { requestPasswordReset, resetLinkUser, resetPassword } from '../../../domain/accounts/password-reset.ts';
import type { User } from '../../../domain/accounts/user.ts';
import { messagePage, newPasswordPage, resetRequestPage } from '../../../web/pages/account-pages.ts';
import { setSessionCookies } from '../../cookies.ts';
import { formRefusal } from '../../form-refusal.ts';
import { PAGE_RESPONSE } from '../../html-reply.ts';
import { errorResponses } from '../../schemas.ts';
import type { AppServer } from '../../types.ts';
import { signedOut } from '../../web-visitor.ts';
import type { AccountPageKit } from './account-page-kit.ts';
import { Form, FORM_ERRORS, SecretParams, text } from './account-page-kit.ts';
import { handleForm } from '../../form-refusal.ts';

/** Password reset by a mailed link (`/account/reset`, `/account/reset/…`). */
export async function accountResetRoutes(app: AppServer, kit: AccountPageKit): Promise<void> {
  const { deps, show, linkProblem } = kit;

  app.get('/account/reset', {
    schema: { hide: true, response: PAGE_RESPONSE },
    handler: async (request, reply) => show(request, reply, (s) => resetRequestPage(s.formToken(), {}, s.context)),
  });

  app.post('/account/reset', {
    schema: {
      hide: true,
      body: Form({ email: text(254) }),
      response: { ...PAGE_RESPONSE, ...errorResponses(FORM_ERRORS, 'invalid_user', 'rate_limited') },
    },
    handler: async (request, reply) =>
      handleForm(
        request,
        reply,
        async () => {
          await requestPasswordReset(request.body.email, request.ip, deps);
          return show(request, reply, (s) =>
            messagePage(s.context.t.site.checkInboxTitle, s.context.t.site.resetSentText, s.context),
          );
        },
        async (state, visitor) =>
          show(request, reply, (s) => resetRequestPage(s.formToken(), state, s.context), visitor),
      ),
  });

  app.get('/account/reset/:secret', {
    schema: {
      hide: true,
      params: SecretParams,
      response: { ...PAGE_RESPONSE, ...errorResponses('invalid_request', 'invalid_link') },
    },
    handler: async (request, reply) => {
      let user: User;
      try {
        user = await resetLinkUser(request.params.secret, deps);
      } catch (error) {
        return linkProblem(request, reply, formRefusal(error, request, reply));
      }
      return show(request, reply, (s) => newPasswordPage(request.params.secret, user, s.formToken(), {}, s.context));
    },
  });

  app.post('/account/reset/:secret', {
    schema: {
      hide: true,
      params: SecretParams,
      body: Form({ password: text(1024) }),
      response: { ...PAGE_RESPONSE, ...errorResponses(FORM_ERRORS, 'invalid_user', 'invalid_link') },
    },
    handler: async (request, reply) =>
      handleForm(
        request,
        reply,
        async () => {
          await resetPassword(
            request.params.secret,
            request.body.password,
            { address: request.ip, requestId: request.id },
            deps,
          );
          setSessionCookies(request, reply, null);
          return show(
            request,
            reply,
            (s) =>
              messagePage(s.context.t.site.passwordSetTitle, s.context.t.site.passwordSetText, s.context, {
                href: '/account/login',
                label: s.context.t.site.signIn,
              }),
            signedOut(request),
          );
        },
        async (state, visitor) => {
          if (state.problem?.code === 'invalid_link') return linkProblem(request, reply, state);
          const user = await resetLinkUser(request.params.secret, deps).catch(() => null);
          if (user === null) return linkProblem(request, reply, state);
          return show(
            request,
            reply,
            (s) => newPasswordPage(request.params.secret, user, s.formToken(), state, s.context),
            visitor,
          );
        },
      ),
  });
}
