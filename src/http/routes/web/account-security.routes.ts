import { said } from '../../../i18n/said.ts';
import { requestTexts } from '../../page-context.ts';
import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { authenticateWithPassword } from '../../../domain/accounts/authenticate.ts';
import { hmacHex } from '../../../domain/accounts/token-codec.ts';
import {
  addPasskey,
  confirmTotp,
  passkeyRegistrationOptions,
  totpStatus,
  removePasskey,
  removeTotp,
  renewRecoveryCodes,
  secondFactorRequired,
  startTotp,
} from '../../../domain/accounts/two-factor.ts';
import type { User } from '../../../domain/accounts/user.ts';
import { userActing } from '../../../domain/audit/audit.ts';
import { AppError } from '../../../errors.ts';
import type { SecurityPageState, SecuritySection } from '../../../web/pages/security-pages.ts';
import { securityPage } from '../../../web/pages/security-pages.ts';
import { PAGE_RESPONSE } from '../../html-reply.ts';
import { errorResponses } from '../../schemas.ts';
import type { AppServer } from '../../types.ts';
import { postedBy, visitorOf } from '../../web-visitor.ts';
import type { Visitor } from '../../web-visitor.ts';
import type { AccountPageKit } from './account-page-kit.ts';
import { Form, FORM_ERRORS, Redirect, signedInForm, text, toSignIn } from './account-page-kit.ts';
import { parsedAnswer } from './passkey-answer.ts';

const TICKET_MS = 10 * 60_000;
const PAGE = '/account/security';

/** `/account/security` (issue 53): the authenticator app, passkeys and recovery codes of the account. */
export async function accountSecurityRoutes(app: AppServer, kit: AccountPageKit): Promise<void> {
  const { container, show } = kit;
  const deps = container.accounts;

  const showSecurity = async (
    request: FastifyRequest,
    reply: FastifyReply,
    visitor: Visitor,
    user: User,
    state: SecurityPageState,
  ) => {
    reply.header('cache-control', 'no-store');
    // The factors as they are now (a form of this request may have changed them), read once.
    const totp = await totpStatus(user, deps);
    const status = {
      hasPassword: user.hasPassword,
      totp: totp.on,
      pendingTotp: totp.pending,
      passkeys: await deps.twoFactor.passkeys(user.id),
      recoveryLeft: await deps.twoFactor.recoveryCodesLeft(user.id),
      required: await secondFactorRequired(user, deps),
    };
    return show(request, reply, (s) => securityPage(status, s.formToken(), state, s.context), visitor);
  };

  app.get('/account/security', {
    schema: {
      hide: true,
      querystring: Type.Object({ required: Type.Optional(text(5)) }, { additionalProperties: true }),
      response: { ...PAGE_RESPONSE, ...Redirect, ...errorResponses('invalid_request') },
    },
    handler: async (request, reply) => {
      const visitor = await visitorOf(request, container);
      if (visitor.user === null) return toSignIn(reply, PAGE);
      return showSecurity(request, reply, visitor, visitor.user, {});
    },
  });

  /** A form of the page: signed in only; a refusal shows the page with it in the form's section. */
  const securityForm = (
    section: SecuritySection,
    work: (user: User, body: Readonly<Record<string, string>>, request: FastifyRequest) => Promise<SecurityPageState>,
  ) =>
    signedInForm(
      PAGE,
      async (user, body, request, reply, visitor) =>
        showSecurity(request, reply, visitor, user, { section, ...(await work(user, body, request)) }),
      (user, state, request, reply, visitor) => showSecurity(request, reply, visitor, user, { section, form: state }),
    );
  const acting = (user: User, request: FastifyRequest) => userActing(user, request.ip, request.id);
  /** Adding or removing a factor, or replacing the recovery codes, asks for the password again (a session may predate the factor). */
  const confirmPassword = async (user: User, body: Readonly<Record<string, string>>, request: FastifyRequest) => {
    const password = body['current_password'] ?? '';
    if (password === '')
      throw new AppError('invalid_request', said`Type your current password to confirm.`, {
        current_password: [said`your current password`],
      });
    try {
      await authenticateWithPassword(user.username, password, request.ip, deps);
    } catch (error) {
      // The sign-in's wording would speak of usernames and external logins: here only the password can be wrong.
      if (error instanceof AppError && error.code === 'not_authenticated')
        throw new AppError('not_authenticated', said`That is not your current password.`, {
          current_password: [said`not your current password`],
        });
      throw error;
    }
  };
  const RESPONSES = {
    ...PAGE_RESPONSE,
    ...Redirect,
    ...errorResponses(FORM_ERRORS, 'rate_limited', 'conflict', 'forbidden', 'not_found', 'not_authenticated'),
  };

  app.post('/account/security/totp/start', {
    schema: { hide: true, body: Form({}), response: RESPONSES },
    handler: securityForm('totp', async (user) => {
      await startTotp(user, deps);
      return {};
    }),
  });

  app.post('/account/security/totp/confirm', {
    schema: { hide: true, body: Form({ code: text(20), current_password: text(1024) }), response: RESPONSES },
    handler: securityForm('totp', async (user, body, request) => {
      await confirmPassword(user, body, request);
      return {
        message: requestTexts(request).site.totpOn,
        recoveryCodes: await confirmTotp(user, body['code'] ?? '', acting(user, request), deps),
      };
    }),
  });

  app.post('/account/security/totp/remove', {
    schema: { hide: true, body: Form({ current_password: text(1024) }), response: RESPONSES },
    handler: securityForm('totp', async (user, body, request) => {
      await confirmPassword(user, body, request);
      await removeTotp(user, acting(user, request), deps);
      return { message: requestTexts(request).site.totpRemoved };
    }),
  });

  app.post('/account/security/recovery', {
    schema: { hide: true, body: Form({ current_password: text(1024) }), response: RESPONSES },
    handler: securityForm('recovery', async (user, body, request) => {
      await confirmPassword(user, body, request);
      return { recoveryCodes: await renewRecoveryCodes(user, acting(user, request), deps) };
    }),
  });

  app.post('/account/security/passkeys/options', {
    schema: {
      hide: true,
      response: {
        200: Type.Object({ options: Type.Unknown(), ticket: Type.String() }),
        ...errorResponses(FORM_ERRORS, 'not_authenticated', 'forbidden'),
      },
    },
    handler: async (request, reply) => {
      const user = postedBy(request).user;
      if (user === null) throw new AppError('not_authenticated', said`Sign in first.`);
      const { options, challenge } = await passkeyRegistrationOptions(user, deps);
      const ticket = randomBytes(32).toString('base64url');
      const hash = hmacHex(deps.keys.session, ticket);
      await deps.twoFactor.createChallenge(
        hash,
        user.id,
        'passkey',
        '',
        new Date(deps.now().getTime() + TICKET_MS),
        challenge,
      );
      reply.header('cache-control', 'no-store');
      return { options, ticket };
    },
  });

  app.post('/account/security/passkeys', {
    schema: {
      hide: true,
      body: Form({ response: text(20_000), ticket: text(100), name: text(100), current_password: text(1024) }),
      response: RESPONSES,
    },
    handler: securityForm('passkeys', async (user, body, request) => {
      await confirmPassword(user, body, request);
      const hash = hmacHex(deps.keys.session, body['ticket'] ?? '');
      const pending = await deps.twoFactor.findChallenge(hash, 'passkey', deps.now());
      if (pending === null || pending.userId !== user.id || pending.challenge === null)
        throw new AppError('not_authenticated', said`This passkey prompt has expired: press the button again.`);
      await deps.twoFactor.deleteChallenge(hash);
      const codes = await addPasskey(
        user,
        parsedAnswer(body['response'] ?? ''),
        pending.challenge,
        body['name'] ?? '',
        acting(user, request),
        deps,
      );
      return { message: requestTexts(request).site.passkeyAddedDone, recoveryCodes: codes };
    }),
  });

  app.post('/account/security/passkeys/remove', {
    schema: {
      hide: true,
      body: Form({ passkey: Type.String({ pattern: '^[0-9]{1,15}$' }), current_password: text(1024) }),
      response: RESPONSES,
    },
    handler: securityForm('passkeys', async (user, body, request) => {
      await confirmPassword(user, body, request);
      await removePasskey(user, Number(body['passkey']), acting(user, request), deps);
      return { message: requestTexts(request).site.passkeyRemovedDone };
    }),
  });
}
