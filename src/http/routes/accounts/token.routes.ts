import type { Container } from '../../../container.ts';
import { getOrCreateToken, replaceToken } from '../../../domain/accounts/api-tokens.ts';
import { actingUser, currentUser, requireUser } from '../../auth.ts';
import { AUTH_ERRORS, BODY_ERRORS, errorResponses, TOKEN_AUTH_ERRORS } from '../../schemas.ts';
import type { AppServer } from '../../types.ts';
import { EmptyBody, TokenResponse } from './accounts.schemas.ts';

/** `POST /api/v1/token` (get or create) and `POST /api/v1/token/new` (replace). */
export async function tokenRoutes(app: AppServer, container: Container): Promise<void> {
  const deps = container.accounts;

  app.post('/api/v1/token', {
    schema: {
      summary: "The caller's API token, created if there is none",
      tags: ['accounts'],
      body: EmptyBody,
      response: { 200: TokenResponse, ...errorResponses(BODY_ERRORS, AUTH_ERRORS, 'csrf_failed') },
    },
    onRequest: requireUser(container, ['basic', 'session']),
    handler: async (request) => ({ token: await getOrCreateToken(currentUser(request), actingUser(request), deps) }),
  });

  app.post('/api/v1/token/new', {
    schema: {
      summary: 'A new API token; the previous one stops working at once (30 a minute)',
      tags: ['accounts'],
      body: EmptyBody,
      response: { 200: TokenResponse, ...errorResponses(BODY_ERRORS, TOKEN_AUTH_ERRORS) },
    },
    onRequest: requireUser(container, ['basic', 'token']),
    handler: async (request) => ({ token: await replaceToken(currentUser(request), actingUser(request), deps) }),
  });
}
