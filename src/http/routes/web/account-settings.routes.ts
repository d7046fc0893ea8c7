import { requestTexts } from '../../page-context.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { changeEmail, changePassword, deleteAccount } from '../../../domain/accounts/account-settings.ts';
import { getOrCreateToken, replaceToken } from '../../../domain/accounts/api-tokens.ts';
import { linkedIdentities, unlinkExternal } from '../../../domain/accounts/external-links.ts';
import { openSession } from '../../../domain/accounts/sessions.ts';
import { maskAddress } from '../../../domain/accounts/sign-up.ts';
import type { User } from '../../../domain/accounts/user.ts';
import type { AccountMethods, AccountPageState, AccountSection } from '../../../web/pages/account-pages.ts';
import { accountPage, messagePage } from '../../../web/pages/account-pages.ts';
import { setSessionCookies } from '../../cookies.ts';
import { PAGE_RESPONSE } from '../../html-reply.ts';
import { errorResponses } from '../../schemas.ts';
import type { AppServer } from '../../types.ts';
import { signedOut, visitorOf } from '../../web-visitor.ts';
import type { Visitor } from '../../web-visitor.ts';
import { userActing } from '../../../domain/audit/audit.ts';
import type { AccountPageKit } from './account-page-kit.ts';
import { Form, FORM_ERRORS, Redirect, text } from './account-page-kit.ts';
import { handleForm } from '../../form-refusal.ts';
import { NOTIFICATION_KINDS } from '../../../domain/notifications/notifications.ts';

/** The account page: token, password, address, linked identities, deletion (`/account`, `/account/…`). */
export async function accountSettingsRoutes(app: AppServer, kit: AccountPageKit): Promise<void> {
  const { container, deps, external, providers, show } = kit;

  const toLogin = (reply: FastifyReply) => reply.redirect('/account/login?next=%2Faccount', 303);
  const showAccount = async (
    request: FastifyRequest,
    reply: FastifyReply,
    visitor: Visitor,
    user: User,
    state: AccountPageState,
  ) => {
    const methods: AccountMethods = {
      providers,
      linked: await linkedIdentities(user, external),
      notificationsOff: await container.notificationLook.store.optedOut(user.id),
    };
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
              message:
                connected === undefined
                  ? requestTexts(request).site.alreadyConnected(linked)
                  : requestTexts(request).site.connected(linked),
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
              messagePage(s.context.t.site.accountTitle, state.problem?.detail ?? '', s.context, {
                href: '/account',
                label: s.context.t.site.accountTitle,
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
        message: requestTexts(request).site.passwordChanged,
      });
    }),
  });

  app.post('/account/notifications', {
    schema: {
      hide: true,
      body: Type.Object(
        { sent: Type.Optional(text(8)) },
        { additionalProperties: true, description: 'on-KIND for each kind kept on' },
      ),
      response: { ...PAGE_RESPONSE, ...Redirect, ...errorResponses(ACCOUNT_ERRORS, 'not_authenticated') },
    },
    handler: accountForm('notifications', async (user, visitor, body, request, reply) => {
      const fields = body as Record<string, string | undefined>;
      const off = NOTIFICATION_KINDS.filter((kind) => (fields[`on-${kind}`] ?? '') === '');
      await container.notificationLook.store.setOptedOut(user.id, off);
      return showAccount(request, reply, visitor, user, {
        section: 'notifications',
        message: requestTexts(request).site.notificationsSaved,
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
        message: requestTexts(request).site.emailChangeSent(maskAddress(email)),
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
        message: requestTexts(request).site.disconnected(providerName(provider) ?? provider),
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
          messagePage(s.context.t.site.accountDeletedTitle, s.context.t.site.accountDeletedText, s.context, {
            href: '/',
            label: s.context.t.site.backHome,
          }),
        signedOut(request),
      );
    }),
  });
}
