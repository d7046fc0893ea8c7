import { said } from '../../../i18n/said.ts';
import { requestTexts } from '../../page-context.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import {
  createScopedToken,
  activePublishingTokens,
  listScopedTokens,
  revokeAllTokens,
  revokeScopedToken,
} from '../../../domain/accounts/scoped-tokens.ts';
import { TOKEN_SCOPES } from '../../../domain/accounts/token-scopes.ts';
import type { User } from '../../../domain/accounts/user.ts';
import { userActing } from '../../../domain/audit/audit.ts';
import { AppError } from '../../../errors.ts';
import type { TokensPageState } from '../../../web/pages/tokens-page.ts';
import { tokensPage } from '../../../web/pages/tokens-page.ts';
import { PAGE_RESPONSE } from '../../html-reply.ts';
import { errorResponses } from '../../schemas.ts';
import type { AppServer } from '../../types.ts';
import { visitorOf } from '../../web-visitor.ts';
import type { Visitor } from '../../web-visitor.ts';
import type { AccountPageKit } from './account-page-kit.ts';
import { Form, FORM_ERRORS, Redirect, signedInForm, text, toSignIn } from './account-page-kit.ts';
import type { SignedInWork } from './account-page-kit.ts';

const PAGE = '/account/tokens';

const MESSAGES: Readonly<Record<string, 'tokenRevoked' | 'tokensRevokedAll'>> = {
  revoked: 'tokenRevoked',
  'revoked-all': 'tokensRevokedAll',
};

/** The form's fields as the domain's request: scopes from the ticked boxes, apps split on spaces and commas. */
function tokenRequest(body: Readonly<Record<string, string>>) {
  const days = (body['days'] ?? '').trim();
  const apps = (body['apps'] ?? '').split(/[\s,]+/).filter((app) => app !== '');
  if (days !== '' && !/^[0-9]{1,3}$/.test(days))
    throw new AppError('invalid_request', said`Cannot make this token: the expiry is a whole number of days.`, {
      days: [said`a whole number of days`],
    });
  return {
    name: body['name'] ?? '',
    scopes: TOKEN_SCOPES.filter((scope) => (body[`scope-${scope}`] ?? '') !== ''),
    ...(apps.length === 0 ? {} : { apps }),
    ...(days === '' ? {} : { expiresInDays: Number(days) }),
  };
}

/** `/account/tokens` (issue 53): list, make and revoke scoped tokens. */
export async function accountTokenRoutes(app: AppServer, kit: AccountPageKit): Promise<void> {
  const { container, show } = kit;
  const deps = container.accounts;
  const showTokens = async (
    request: FastifyRequest,
    reply: FastifyReply,
    visitor: Visitor,
    user: User,
    state: TokensPageState,
  ) => {
    reply.header('cache-control', 'no-store');
    const tokens = await listScopedTokens(user, deps);
    const publishing = await activePublishingTokens(user, deps);
    return show(
      request,
      reply,
      (s) => tokensPage(tokens, publishing, deps.now(), s.formToken(), state, s.context),
      visitor,
    );
  };

  app.get('/account/tokens', {
    schema: {
      hide: true,
      querystring: Type.Object({ done: Type.Optional(text(20)) }, { additionalProperties: true }),
      response: { ...PAGE_RESPONSE, ...Redirect, ...errorResponses('invalid_request') },
    },
    handler: async (request, reply) => {
      const visitor = await visitorOf(request, container);
      if (visitor.user === null) return toSignIn(reply, PAGE);
      const message = MESSAGES[request.query.done ?? ''];
      return showTokens(
        request,
        reply,
        visitor,
        visitor.user,
        message === undefined ? {} : { message: requestTexts(request).site[message] },
      );
    },
  });

  /** A tokens form: signed in only; a refusal shows the page with what was wrong. */
  const tokensForm = (work: SignedInWork) =>
    signedInForm(PAGE, work, (user, state, request, reply, visitor) =>
      showTokens(request, reply, visitor, user, { form: state }),
    );
  const FORM_RESPONSES = {
    ...PAGE_RESPONSE,
    ...Redirect,
    ...errorResponses(FORM_ERRORS, 'rate_limited', 'insufficient_scope', 'not_found'),
  };

  app.post('/account/tokens', {
    schema: {
      hide: true,
      body: Type.Object(
        { name: text(200), apps: Type.Optional(text(2000)), days: Type.Optional(text(10)) },
        { additionalProperties: true },
      ),
      response: FORM_RESPONSES,
    },
    handler: tokensForm(async (user, body, request, reply, visitor) => {
      const made = await createScopedToken(user, tokenRequest(body), userActing(user, request.ip, request.id), deps);
      // The text is shown on this answer only: no redirect, no cache.
      return showTokens(request, reply, visitor, user, { made: { name: made.record.name, token: made.token } });
    }),
  });

  app.post('/account/tokens/:tokenId/revoke', {
    schema: {
      hide: true,
      params: Type.Object({ tokenId: Type.String({ pattern: '^[0-9]{1,15}$' }) }),
      body: Form({}),
      response: FORM_RESPONSES,
    },
    handler: tokensForm(async (user, _body, request, reply) => {
      const { tokenId } = request.params as { tokenId: string };
      await revokeScopedToken(user, Number(tokenId), userActing(user, request.ip, request.id), deps);
      return reply.redirect('/account/tokens?done=revoked', 303);
    }),
  });

  app.post('/account/tokens/revoke-all', {
    schema: { hide: true, body: Form({}), response: FORM_RESPONSES },
    handler: tokensForm(async (user, _body, request, reply) => {
      await revokeAllTokens(user, userActing(user, request.ip, request.id), deps);
      return reply.redirect('/account/tokens?done=revoked-all', 303);
    }),
  });
}
