import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Container } from '../../../container.ts';
import { changeEmail, changePassword, deleteAccount } from '../../../domain/accounts/account-settings.ts';
import { readLink } from '../../../domain/accounts/account-links.ts';
import { getOrCreateToken, replaceToken } from '../../../domain/accounts/api-tokens.ts';
import { requestPasswordReset, resetLinkUser, resetPassword } from '../../../domain/accounts/password-reset.ts';
import { linkedIdentities, unlinkExternal } from '../../../domain/accounts/external-login.ts';
import { endSession, openSession } from '../../../domain/accounts/sessions.ts';
import { maskAddress, signInOnWebsite, signUp, verifyEmail } from '../../../domain/accounts/sign-up.ts';
import type { User } from '../../../domain/accounts/user.ts';
import type { FormState } from '../../../web/forms.ts';
import type { Html } from '../../../web/html.ts';
import { localPath } from '../../../web/local-path.ts';
import type {
  AccountMethods,
  AccountPageState,
  AccountSection,
  ProviderChoice,
} from '../../../web/pages/account-pages.ts';
import {
  accountPage,
  loginPage,
  messagePage,
  newPasswordPage,
  resetRequestPage,
  signUpPage,
  verifyPage,
} from '../../../web/pages/account-pages.ts';
import { STRINGS } from '../../../web/strings.ts';
import { installFormParser } from '../../body-parsers.ts';
import { readSessionCookie, setSessionCookies } from '../../cookies.ts';
import { formRefusal } from '../../form-refusal.ts';
import { PAGE_RESPONSE } from '../../html-reply.ts';
import { showPage } from '../../page-context.ts';
import type { PageSetting } from '../../page-context.ts';
import { BODY_ERRORS, errorResponses } from '../../schemas.ts';
import type { AppServer } from '../../types.ts';
import { postedBy, signedOut, visitorOf } from '../../web-visitor.ts';
import type { Visitor } from '../../web-visitor.ts';
import { userActing } from '../../../domain/audit/audit.ts';

const Redirect = { 303: Type.Null({ description: 'On to the next page' }) };
const text = (maxLength: number) => Type.String({ maxLength });
const Form = <T extends Record<string, ReturnType<typeof text>>>(fields: T) =>
  Type.Object(fields, { additionalProperties: true });
const SecretParams = Type.Object({
  secret: Type.String({ maxLength: 200, description: 'the secret part of a mailed link' }),
});
const FORM_ERRORS = [...BODY_ERRORS, 'csrf_failed'] as const;

/**
 * The website's accounts (docs/website.md): sign-in, sign-out, sign-up with a confirmed address,
 * password reset by mail, and the account page (token, password, address, deletion). Every form
 * carries a CSRF token; a refused form comes back with what was wrong, under the catalogue's status.
 */
export async function accountPageRoutes(app: AppServer, container: Container): Promise<void> {
  const deps = container.selfService;
  const external = container.externalLogin;
  /** The "Sign in with …" buttons of the sign-in and sign-up pages. */
  const providers: ProviderChoice[] = [...external.providers.values()].map(({ id, name }) => ({ id, name }));
  installFormParser(app);

  const show = (
    request: FastifyRequest,
    reply: FastifyReply,
    build: (setting: PageSetting) => Html,
    visitor?: Visitor,
  ) => showPage(request, reply, container, build, visitor);

  /** Runs the work for the form's sender (checked by the website's guard); a refusal shows the form again. */
  async function handleForm(
    request: FastifyRequest,
    reply: FastifyReply,
    work: (visitor: Visitor) => Promise<FastifyReply>,
    refused: (state: FormState, visitor: Visitor | undefined) => Promise<FastifyReply>,
  ): Promise<FastifyReply> {
    let visitor: Visitor | undefined;
    try {
      visitor = postedBy(request);
      return await work(visitor);
    } catch (error) {
      return refused(formRefusal(error, request, reply), visitor);
    }
  }

  // Sign-in and sign-out

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

  // Sign-up and the confirmation of an address

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
          await signUp({ username, email, password }, { address: request.ip, requestId: request.id }, deps);
          return show(request, reply, (s) =>
            messagePage(STRINGS.checkInboxTitle, STRINGS.checkInboxSignUp(email.trim()), s.context),
          );
        },
        async (state, visitor) =>
          show(request, reply, (s) => signUpPage(deps.signUpOpen, s.formToken(), state, s.context, providers), visitor),
      );
    },
  });

  const linkProblem = (request: FastifyRequest, reply: FastifyReply, state: FormState) =>
    show(request, reply, (s) =>
      messagePage(STRINGS.linkProblemTitle, state.problem?.detail ?? '', s.context, {
        href: '/account/login',
        label: STRINGS.signIn,
      }),
    );

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
              STRINGS.verifiedTitle,
              STRINGS.verifiedText(user.email ?? ''),
              s.context,
              s.visitor.user === null
                ? { href: '/account/login', label: STRINGS.signIn }
                : { href: '/account', label: STRINGS.accountTitle },
            ),
          );
        },
        async (state, visitor) =>
          state.problem?.code === 'csrf_failed'
            ? show(request, reply, (s) => verifyPage(request.params.secret, s.formToken(), state, s.context), visitor)
            : linkProblem(request, reply, state),
      ),
  });

  // Password reset

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
          return show(request, reply, (s) => messagePage(STRINGS.checkInboxTitle, STRINGS.resetSentText, s.context));
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
              messagePage(STRINGS.passwordSetTitle, STRINGS.passwordSetText, s.context, {
                href: '/account/login',
                label: STRINGS.signIn,
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

  // The account page

  const toLogin = (reply: FastifyReply) => reply.redirect('/account/login?next=%2Faccount', 303);
  const showAccount = async (
    request: FastifyRequest,
    reply: FastifyReply,
    visitor: Visitor,
    user: User,
    state: AccountPageState,
  ) => {
    const methods: AccountMethods = { providers, linked: await linkedIdentities(user, external) };
    return show(request, reply, (s) => accountPage(user, s.formToken(), state, s.context, methods), visitor);
  };
  const providerName = (id: string | undefined): string | null =>
    id === undefined ? null : (external.providers.get(id)?.name ?? null);

  app.get('/account', {
    schema: {
      hide: true,
      querystring: Type.Object(
        {
          welcome: Type.Optional(text(30)),
          address: Type.Optional(text(20)),
          connected: Type.Optional(text(30)),
          already: Type.Optional(text(30)),
        },
        {
          additionalProperties: true,
          description:
            'What the page says after an external login: the provider of a new account, or of a connected identity',
        },
      ),
      response: { ...PAGE_RESPONSE, ...Redirect, ...errorResponses('invalid_request') },
    },
    handler: async (request, reply) => {
      const visitor = await visitorOf(request, container);
      if (visitor.user === null) return toLogin(reply);
      reply.header('cache-control', 'no-store');
      const { welcome, address, connected, already } = request.query;
      const welcomed = providerName(welcome);
      const linked = providerName(connected) ?? providerName(already);
      const state: AccountPageState = {
        ...(welcomed === null ? {} : { welcome: { provider: welcomed, addressInUse: address === 'in-use' } }),
        ...(linked === null
          ? {}
          : {
              section: 'methods',
              message: connected === undefined ? STRINGS.alreadyConnected(linked) : STRINGS.connected(linked),
            }),
      };
      return showAccount(request, reply, visitor, visitor.user, state);
    },
  });

  /** An account form: signed in only; a refusal shows the page with the problem in the form's section. */
  function accountForm(
    section: AccountSection,
    work: (
      user: User,
      visitor: Visitor,
      body: Readonly<Record<string, string>>,
      request: FastifyRequest,
      reply: FastifyReply,
    ) => Promise<FastifyReply>,
  ) {
    return async (request: FastifyRequest, reply: FastifyReply) => {
      reply.header('cache-control', 'no-store');
      return handleForm(
        request,
        reply,
        async (visitor) => {
          if (visitor.user === null) return toLogin(reply);
          // The route's schema made every field a string.
          return work(visitor.user, visitor, request.body as Record<string, string>, request, reply);
        },
        async (state, visitor) => {
          const user = visitor?.user ?? null;
          if (user === null || visitor === undefined)
            return show(request, reply, (s) =>
              messagePage(STRINGS.accountTitle, state.problem?.detail ?? '', s.context, {
                href: '/account',
                label: STRINGS.accountTitle,
              }),
            );
          return showAccount(request, reply, visitor, user, { section, form: state });
        },
      );
    };
  }

  const ACCOUNT_ERRORS = [...FORM_ERRORS, 'rate_limited'] as const;

  app.post('/account/token', {
    schema: {
      hide: true,
      body: Form({}),
      response: { ...PAGE_RESPONSE, ...Redirect, ...errorResponses(ACCOUNT_ERRORS) },
    },
    handler: accountForm('token', async (user, visitor, _body, request, reply) =>
      showAccount(request, reply, visitor, user, {
        section: 'token',
        token: { value: await getOrCreateToken(user, userActing(user, request.ip, request.id), deps), replaced: false },
      }),
    ),
  });

  app.post('/account/token/new', {
    schema: {
      hide: true,
      body: Form({}),
      response: { ...PAGE_RESPONSE, ...Redirect, ...errorResponses(ACCOUNT_ERRORS) },
    },
    handler: accountForm('token', async (user, visitor, _body, request, reply) =>
      showAccount(request, reply, visitor, user, {
        section: 'token',
        token: { value: await replaceToken(user, userActing(user, request.ip, request.id), deps), replaced: true },
      }),
    ),
  });

  app.post('/account/password', {
    schema: {
      hide: true,
      body: Type.Object(
        { current_password: Type.Optional(text(1024)), password: text(1024) },
        { additionalProperties: true, description: 'current_password: not for an account without one' },
      ),
      response: {
        ...PAGE_RESPONSE,
        ...Redirect,
        ...errorResponses(ACCOUNT_ERRORS, 'not_authenticated', 'invalid_user', 'forbidden'),
      },
    },
    handler: accountForm('password', async (user, _visitor, body, request, reply) => {
      await changePassword(
        user,
        body.current_password ?? '',
        body.password ?? '',
        userActing(user, request.ip, request.id),
        deps,
      );
      // Every session ended, this one too: this browser continues in a new one.
      const session = await openSession(user, deps);
      setSessionCookies(request, reply, session);
      return showAccount(request, reply, { user, browserSecret: session.sessionId }, user, {
        section: 'password',
        message: STRINGS.passwordChanged,
      });
    }),
  });

  app.post('/account/email', {
    schema: {
      hide: true,
      body: Type.Object(
        { email: text(254), current_password: Type.Optional(text(1024)) },
        { additionalProperties: true },
      ),
      response: {
        ...PAGE_RESPONSE,
        ...Redirect,
        ...errorResponses(ACCOUNT_ERRORS, 'not_authenticated', 'invalid_user', 'forbidden'),
      },
    },
    handler: accountForm('email', async (user, visitor, body, request, reply) => {
      const email = (body.email ?? '').trim();
      await changeEmail(user, body.current_password ?? '', email, request.ip, deps);
      return showAccount(request, reply, visitor, user, {
        section: 'email',
        message: STRINGS.emailChangeSent(maskAddress(email)),
      });
    }),
  });

  app.post('/account/external/:provider/unlink', {
    schema: {
      hide: true,
      params: Type.Object({ provider: Type.String({ maxLength: 30, description: 'the provider id' }) }),
      body: Form({}),
      response: { ...PAGE_RESPONSE, ...Redirect, ...errorResponses(ACCOUNT_ERRORS, 'conflict') },
    },
    handler: accountForm('methods', async (user, visitor, _body, request, reply) => {
      const { provider } = request.params as { provider: string };
      await unlinkExternal(user, provider, userActing(user, request.ip, request.id), external);
      return showAccount(request, reply, visitor, user, {
        section: 'methods',
        message: STRINGS.disconnected(providerName(provider) ?? provider),
      });
    }),
  });

  app.post('/account/delete', {
    schema: {
      hide: true,
      body: Type.Object(
        { current_password: Type.Optional(text(1024)), confirm_username: Type.Optional(text(150)) },
        { additionalProperties: true, description: 'The password, or for an account without one its username' },
      ),
      response: {
        ...PAGE_RESPONSE,
        ...Redirect,
        ...errorResponses(ACCOUNT_ERRORS, 'not_authenticated', 'forbidden', 'conflict', 'invalid_user'),
      },
    },
    handler: accountForm('delete', async (user, _visitor, body, request, reply) => {
      await deleteAccount(
        user,
        (user.hasPassword ? body.current_password : body.confirm_username) ?? '',
        userActing(user, request.ip, request.id),
        deps,
      );
      setSessionCookies(request, reply, null);
      return show(
        request,
        reply,
        (s) =>
          messagePage(STRINGS.accountDeletedTitle, STRINGS.accountDeletedText, s.context, {
            href: '/',
            label: STRINGS.backHome,
          }),
        signedOut(request),
      );
    }),
  });
}
