import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Container } from '../../../container.ts';
import { getOrCreateToken, replaceToken } from '../../../domain/accounts/api-tokens.ts';
import { currentUser, requireUser } from '../../auth.ts';
import { errorResponse } from '../../schemas.ts';
import { TokenResponse, authErrors } from './accounts.schemas.ts';

const EmptyBody = Type.Union([Type.Null(), Type.Object({}, { additionalProperties: true })], { description: 'No body is needed; any JSON object is ignored' });

/** `POST /api/v1/token` (get or create) and `POST /api/v1/token/new` (replace). */
export async function tokenRoutes(app: FastifyInstance, container: Container): Promise<void> {
  const deps = container.accounts;

  app.post('/api/v1/token', {
    schema: {
      summary: "The caller's API token, created if there is none",
      tags: ['accounts'],
      body: EmptyBody,
      response: { 200: TokenResponse, ...authErrors, 403: errorResponse('Session request without a valid X-CSRF-Token') },
    },
    onRequest: requireUser(container, ['basic', 'session']),
    handler: async (request) => ({ token: await getOrCreateToken(currentUser(request), deps) }),
  });

  app.post('/api/v1/token/new', {
    schema: {
      summary: 'A new API token; the previous one stops working at once (30 a minute)',
      tags: ['accounts'],
      body: EmptyBody,
      response: { 200: TokenResponse, ...authErrors },
    },
    onRequest: requireUser(container, ['basic', 'token']),
    handler: async (request) => ({ token: await replaceToken(currentUser(request), deps) }),
  });
}
