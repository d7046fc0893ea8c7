import { Type } from 'typebox';
import type { Container } from '../../../container.ts';
import type { AccessToken } from '../../../domain/accounts/scoped-tokens.ts';
import {
  createScopedToken,
  DEFAULT_TOKEN_DAYS,
  listScopedTokens,
  MAX_TOKEN_APPS,
  MAX_TOKEN_DAYS,
  revokeAllTokens,
  revokePresentedToken,
  revokeScopedToken,
} from '../../../domain/accounts/scoped-tokens.ts';
import { TOKEN_SCOPES } from '../../../domain/accounts/token-scopes.ts';
import { actingUser, currentUser, requireUser } from '../../auth.ts';
import { sendEmpty } from '../../reply.ts';
import { AUTH_ERRORS, BODY_ERRORS, errorResponses, TOKEN_AUTH_ERRORS } from '../../schemas.ts';
import type { AppServer } from '../../types.ts';

const ScopedToken = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    scopes: Type.Array(Type.String()),
    apps: Type.Union([Type.Array(Type.String()), Type.Null()], { description: 'null: every app of the account' }),
    createdAt: Type.String({ description: 'ISO 8601' }),
    expiresAt: Type.String({ description: 'ISO 8601' }),
    lastUsedAt: Type.Union([Type.String(), Type.Null()], { description: 'ISO 8601, to the minute' }),
    expired: Type.Boolean(),
  },
  { $id: 'ScopedToken', title: 'Scoped token' },
);

const NewToken = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100, description: 'To tell the token apart later' }),
  scopes: Type.Array(Type.String({ maxLength: 40 }), {
    maxItems: 20,
    description: `One or more of ${TOKEN_SCOPES.join(', ')}`,
  }),
  apps: Type.Optional(
    Type.Array(Type.String({ maxLength: 32 }), {
      maxItems: MAX_TOKEN_APPS,
      description: 'Only these apps; omitted or empty: every app of the account',
    }),
  ),
  expiresInDays: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_TOKEN_DAYS, description: `Default ${DEFAULT_TOKEN_DAYS}` }),
  ),
});

function shown(token: AccessToken, now: Date) {
  return {
    id: token.id,
    name: token.name,
    scopes: [...token.scopes],
    apps: token.apps === null ? null : [...token.apps],
    createdAt: token.createdAt.toISOString(),
    expiresAt: token.expiresAt.toISOString(),
    lastUsedAt: token.lastUsedAt?.toISOString() ?? null,
    expired: token.expiresAt <= now,
  };
}

/**
 * Scoped tokens (issue 53): `GET|POST|DELETE /api/v1/tokens`, `DELETE /api/v1/tokens/{id}`, and
 * `DELETE /api/v1/token`, with which any token revokes itself. The seed's `POST /api/v1/token` and
 * `/token/new` (token.routes.ts) are unchanged.
 */
export async function scopedTokenRoutes(app: AppServer, container: Container): Promise<void> {
  const deps = container.accounts;
  const managing = requireUser(container, ['basic', 'token'], 'token:manage');

  app.get('/api/v1/tokens', {
    schema: {
      summary: "The account's scoped tokens (never their text), newest first",
      tags: ['accounts'],
      response: { 200: Type.Array(ScopedToken), ...errorResponses(BODY_ERRORS, TOKEN_AUTH_ERRORS) },
    },
    onRequest: managing,
    handler: async (request) => {
      const now = deps.now();
      return (await listScopedTokens(currentUser(request), deps)).map((token) => shown(token, now));
    },
  });

  app.post('/api/v1/tokens', {
    schema: {
      summary: 'Make a scoped token: its text is in this answer only',
      description: `Scopes: ${TOKEN_SCOPES.join(', ')}. A token made with a token gets no more than that token has.`,
      tags: ['accounts'],
      body: NewToken,
      response: {
        201: Type.Intersect([ScopedToken, Type.Object({ token: Type.String({ description: 'Shown once' }) })]),
        ...errorResponses(BODY_ERRORS, TOKEN_AUTH_ERRORS),
      },
    },
    onRequest: managing,
    handler: async (request, reply) => {
      const { token, record } = await createScopedToken(currentUser(request), request.body, actingUser(request), deps);
      reply.header('cache-control', 'no-store');
      return reply.code(201).send({ ...shown(record, deps.now()), token });
    },
  });

  app.delete('/api/v1/tokens/:tokenId', {
    schema: {
      summary: 'Revoke one scoped token',
      tags: ['accounts'],
      params: Type.Object({ tokenId: Type.String({ pattern: '^[0-9]{1,15}$' }) }),
      response: {
        204: Type.Null({ description: 'Revoked' }),
        ...errorResponses(BODY_ERRORS, TOKEN_AUTH_ERRORS, 'not_found'),
      },
    },
    onRequest: managing,
    handler: async (request, reply) => {
      await revokeScopedToken(currentUser(request), Number(request.params.tokenId), actingUser(request), deps);
      return sendEmpty(reply, 204);
    },
  });

  app.delete('/api/v1/tokens', {
    schema: {
      summary: 'Revoke every token of the account: the scoped ones and the unscoped one',
      tags: ['accounts'],
      response: {
        200: Type.Object({ revoked: Type.Integer({ description: 'How many tokens stopped working' }) }),
        ...errorResponses(BODY_ERRORS, TOKEN_AUTH_ERRORS),
      },
    },
    onRequest: managing,
    handler: async (request) => ({
      revoked: await revokeAllTokens(currentUser(request), actingUser(request), deps),
    }),
  });

  app.delete('/api/v1/token', {
    schema: {
      summary: 'The token of this request revokes itself (any token, scoped or not)',
      tags: ['accounts'],
      response: { 204: Type.Null({ description: 'Revoked' }), ...errorResponses(BODY_ERRORS, AUTH_ERRORS) },
    },
    onRequest: requireUser(container, ['token'], 'any'),
    handler: async (request, reply) => {
      await revokePresentedToken(currentUser(request), actingUser(request), deps);
      return sendEmpty(reply, 204);
    },
  });
}
