import { said } from '../../../i18n/said.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Container } from '../../../container.ts';
import { beginExternalLogin, finishExternalLogin } from '../../../domain/accounts/external-sign-in.ts';
import { chooseUsername, pendingSignUp } from '../../../domain/accounts/external-sign-up.ts';
import type { ExternalOutcome } from '../../../domain/accounts/external-login.ts';
import { checkFormToken } from '../../../domain/accounts/form-token.ts';
import { AppError, isAppError } from '../../../errors.ts';
import { ERROR_STATUS } from '../../error-status.ts';
import { wantsPage } from '../../html-reply.ts';
import type { FormState } from '../../../web/forms.ts';
import type { Html } from '../../../web/html.ts';
import { localPath } from '../../../web/local-path.ts';
import { chooseUsernamePage, messagePage } from '../../../web/pages/account-pages.ts';
import { installFormParser } from '../../body-parsers.ts';
import { loginFlowSecret, readLoginFlowCookie, setSessionCookies } from '../../cookies.ts';
import { formRefusal } from '../../form-refusal.ts';
import { PAGE_RESPONSE } from '../../html-reply.ts';
import { showPage } from '../../page-context.ts';
import type { PageSetting } from '../../page-context.ts';
import { BODY_ERRORS, errorResponses } from '../../schemas.ts';
import type { AppServer } from '../../types.ts';
import { postedBy, visitorOf } from '../../web-visitor.ts';

const Redirect = { 303: Type.Null({ description: 'On to the provider, or the next page' }) };
const ProviderParams = Type.Object({
  provider: Type.String({ maxLength: 30, pattern: '^[a-z0-9][a-z0-9-]*$', description: 'the provider id' }),
});
const text = (maxLength: number) => Type.String({ maxLength });
/** What the provider's callback may carry (OAuth 2.0 and its error answer; the `iss` of RFC 9207). */
const CallbackQuery = Type.Object(
  {
    code: Type.Optional(text(4096)),
    state: Type.Optional(text(512)),
    iss: Type.Optional(text(2000)),
    error: Type.Optional(text(200)),
    error_description: Type.Optional(text(2000)),
    error_uri: Type.Optional(text(2000)),
  },
  { additionalProperties: true },
);
const CALLBACK_ERRORS = [
  'invalid_request',
  'not_found',
  'external_login_failed',
  'forbidden',
  'signup_closed',
  'conflict',
] as const;

/** An error's causes, as one line for the log: what a provider's failure was underneath. */
function causeText(cause: unknown): string {
  const parts: string[] = [];
  for (let at = cause; at instanceof Error && parts.length < 5; at = at.cause)
    parts.push(
      `${at.name}: ${at.message}${typeof (at as { code?: unknown }).code === 'string' ? ` (${String((at as { code?: unknown }).code)})` : ''}`,
    );
  return parts.join(' ← ');
}

/**
 * External login (docs/external-login.md): "Sign in with …" begins a flow (state, nonce, PKCE
 * kept server-side and bound to the browser), the provider's callback ends it (sign-in, sign-up,
 * or connecting the identity to the account that asked), and a first sign-in whose name is taken
 * asks for another. Every refusal is a page that says what happened; nothing is created.
 */
export async function externalLoginRoutes(app: AppServer, container: Container): Promise<void> {
  const deps = container.externalLogin;
  installFormParser(app);

  const show = (request: FastifyRequest, reply: FastifyReply, build: (setting: PageSetting) => Html) =>
    showPage(request, reply, container, build);

  /**
   * A refusal as a page under its status: the title names the provider when there is one. A
   * provider that cannot be used (unreachable, silent, misconfigured: 502) gets the same page, and
   * an error in the log with its cause, which the page never shows (addresses, configuration).
   */
  const refusal = (request: FastifyRequest, reply: FastifyReply, error: unknown, providerId: string | null) => {
    let detail: string;
    if (isAppError(error) && error.code === 'identity_provider_unavailable' && wantsPage(request)) {
      request.log.error(
        { err: error, code: error.code, cause: causeText(error.cause) },
        `identity provider ${providerId ?? '?'} unavailable`,
      );
      reply.code(ERROR_STATUS.identity_provider_unavailable);
      detail = error.detail;
    } else detail = formRefusal(error, request, reply).problem?.detail ?? '';
    const name = providerId === null ? null : (deps.providers.get(providerId)?.name ?? null);
    return show(request, reply, (s) =>
      messagePage(
        name === null ? s.context.t.site.externalFailedTitleGeneric : s.context.t.site.externalFailedTitle(name),
        detail,
        s.context,
        { href: '/account/login', label: s.context.t.site.tryAgain },
      ),
    );
  };

  app.get('/account/external/:provider/start', {
    schema: {
      hide: true,
      params: ProviderParams,
      querystring: Type.Object({ next: Type.Optional(text(2000)) }, { additionalProperties: true }),
      response: {
        ...PAGE_RESPONSE,
        ...Redirect,
        ...errorResponses('invalid_request', 'not_found', 'rate_limited', 'identity_provider_unavailable'),
      },
    },
    handler: async (request, reply) => {
      const next = localPath(request.query.next);
      const visitor = await visitorOf(request, container);
      if (visitor.user !== null) return reply.redirect(next, 303);
      try {
        const url = await beginExternalLogin(
          {
            providerId: request.params.provider,
            purpose: 'sign-in',
            user: null,
            next,
            browserSecret: loginFlowSecret(request, reply),
            address: request.ip,
          },
          deps,
        );
        return reply.header('cache-control', 'no-store').redirect(url.href, 303);
      } catch (error) {
        return refusal(request, reply, error, request.params.provider);
      }
    },
  });

  app.get('/account/external/:provider/link', {
    schema: {
      hide: true,
      params: ProviderParams,
      querystring: Type.Object({ csrf_token: Type.Optional(text(200)) }, { additionalProperties: true }),
      response: {
        ...PAGE_RESPONSE,
        ...Redirect,
        ...errorResponses(
          'invalid_request',
          'not_found',
          'csrf_failed',
          'rate_limited',
          'identity_provider_unavailable',
        ),
      },
    },
    handler: async (request, reply) => {
      const visitor = await visitorOf(request, container);
      if (visitor.user === null) return reply.redirect('/account/login?next=%2Faccount', 303);
      try {
        // A link, not a form (the provider is another site: CSP form-action), so the page's token comes in the query.
        checkFormToken(container.accounts.keys, visitor.browserSecret, request.query.csrf_token);
        const url = await beginExternalLogin(
          {
            providerId: request.params.provider,
            purpose: 'link',
            user: visitor.user,
            next: '/account',
            browserSecret: loginFlowSecret(request, reply),
            address: request.ip,
          },
          deps,
        );
        return reply.header('cache-control', 'no-store').redirect(url.href, 303);
      } catch (error) {
        return refusal(request, reply, error, request.params.provider);
      }
    },
  });

  app.get('/account/external/:provider/callback', {
    schema: {
      hide: true,
      params: ProviderParams,
      querystring: CallbackQuery,
      response: {
        ...PAGE_RESPONSE,
        ...Redirect,
        ...errorResponses(...CALLBACK_ERRORS, 'identity_provider_unavailable'),
      },
    },
    handler: async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const query = new URL(request.url, 'http://callback').searchParams;
      let outcome: ExternalOutcome;
      try {
        const visitor = await visitorOf(request, container);
        outcome = await finishExternalLogin(
          request.params.provider,
          query,
          { secret: readLoginFlowCookie(request), signedInAs: visitor.user?.id ?? null },
          { address: request.ip, requestId: request.id },
          deps,
        );
      } catch (error) {
        return refusal(request, reply, error, request.params.provider);
      }
      return follow(request, reply, outcome);
    },
  });

  /** Where an ended sign-in goes: on to its page, to the account page with a welcome, or to the choice of a username. */
  function follow(request: FastifyRequest, reply: FastifyReply, outcome: ExternalOutcome): FastifyReply {
    switch (outcome.kind) {
      case 'choose-username':
        return reply.redirect('/account/external/username', 303);
      case 'linked':
        return reply.redirect(
          `/account?${outcome.already ? 'already' : 'connected'}=${outcome.provider.id}#methods`,
          303,
        );
      case 'signed-in': {
        setSessionCookies(request, reply, outcome.session);
        return reply.redirect(outcome.created ? welcomePage(outcome) : outcome.next, 303);
      }
    }
  }

  app.get('/account/external/username', {
    schema: { hide: true, response: { ...PAGE_RESPONSE, ...errorResponses('external_login_failed') } },
    handler: async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const pending = await pendingSignUp(readLoginFlowCookie(request), deps);
      if (pending === null)
        return refusal(
          request,
          reply,
          new AppError(
            'external_login_failed',
            said`No sign-in is waiting for a username in this browser: it took longer than 10 minutes, or was finished already. Start again from the sign-in page.`,
          ),
          null,
        );
      return show(request, reply, (s) =>
        chooseUsernamePage(pending.provider.name, pending.suggestion, s.formToken(), {}, s.context),
      );
    },
  });

  app.post('/account/external/username', {
    schema: {
      hide: true,
      body: Type.Object({ username: text(150) }, { additionalProperties: true }),
      response: {
        ...PAGE_RESPONSE,
        ...Redirect,
        ...errorResponses(
          [...BODY_ERRORS, 'csrf_failed'],
          'external_login_failed',
          'invalid_user',
          'user_exists',
          'conflict',
        ),
      },
    },
    handler: async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const browser = readLoginFlowCookie(request);
      try {
        postedBy(request);
        const outcome = await chooseUsername(
          browser,
          request.body.username,
          { address: request.ip, requestId: request.id },
          deps,
        );
        setSessionCookies(request, reply, outcome.session);
        return reply.redirect(welcomePage(outcome), 303);
      } catch (error) {
        if (
          error instanceof AppError &&
          (error.code === 'invalid_user' || error.code === 'user_exists' || error.code === 'csrf_failed')
        ) {
          const state: FormState = formRefusal(error, request, reply);
          const pending = await pendingSignUp(browser, deps);
          if (pending !== null)
            return show(request, reply, (s) =>
              chooseUsernamePage(pending.provider.name, pending.suggestion, s.formToken(), state, s.context),
            );
        }
        return refusal(request, reply, error, null);
      }
    },
  });
}

/** The account page, welcoming an account an external login just created. */
function welcomePage(outcome: Extract<ExternalOutcome, { kind: 'signed-in' }>): string {
  return `/account?welcome=${outcome.provider}${outcome.addressInUse ? '&address=in-use' : ''}`;
}
