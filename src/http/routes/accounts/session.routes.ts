import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Container } from '../../../container.ts';
import { SESSION_LIFETIME_MS, checkCsrf, login, logout, resolveSession } from '../../../domain/accounts/sessions.ts';
import { AppError } from '../../../errors.ts';
import { CSRF_COOKIE, SESSION_COOKIE, readCookie, setCookie } from '../../cookies.ts';
import { errorResponse } from '../../schemas.ts';
import { LoginBody, LoginResponse, authErrors } from './accounts.schemas.ts';

/** A cross-site login (login CSRF) is refused: an Origin header, when sent, must be this host. */
function refuseForeignOrigin(request: FastifyRequest): void {
  const origin = request.headers.origin;
  if (origin === undefined || origin === 'null') return;
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    host = '';
  }
  if (host !== request.host) throw new AppError('csrf_failed', `Cross-site sign-in refused: Origin ${origin.slice(0, 100)} is not this site.`);
}

/** Web sessions: `POST /login` sets an HttpOnly cookie, `POST /logout` ends it. */
export async function sessionRoutes(app: FastifyInstance, container: Container): Promise<void> {
  const deps = container.accounts;
  const maxAge = Math.floor(SESSION_LIFETIME_MS / 1000);

  app.post('/login', {
    schema: {
      summary: 'Sign in with username and password; sets the session cookie',
      tags: ['accounts'],
      body: LoginBody,
      response: { 200: LoginResponse, ...authErrors, 403: errorResponse('Cross-site sign-in refused') },
    },
    handler: async (request, reply) => {
      refuseForeignOrigin(request);
      const { username, password } = request.body as { username: string; password: string };
      const session = await login(username, password, request.ip, deps);
      setCookie(request, reply, SESSION_COOKIE, session.sessionId, { httpOnly: true, maxAge });
      setCookie(request, reply, CSRF_COOKIE, session.csrfToken, { httpOnly: false, maxAge });
      reply.header('cache-control', 'no-store');
      return { username: session.user.username, csrfToken: session.csrfToken, expiresAt: session.expiresAt.toISOString() };
    },
  });

  app.post('/logout', {
    schema: {
      summary: 'End the session (needs X-CSRF-Token); clears the cookies',
      tags: ['accounts'],
      body: Type.Union([Type.Null(), Type.Object({}, { additionalProperties: true })]),
      response: { 204: Type.Null({ description: 'Signed out (also when there was no session)' }), 403: errorResponse('Missing or wrong X-CSRF-Token') },
    },
    handler: async (request, reply) => {
      const sessionId = readCookie(request, SESSION_COOKIE);
      if (sessionId !== undefined) {
        const session = await resolveSession(sessionId, deps);
        if (session !== null) {
          const provided = request.headers['x-csrf-token'];
          checkCsrf(session, Array.isArray(provided) ? provided[0] : provided, deps);
          await logout(sessionId, deps);
        }
      }
      setCookie(request, reply, SESSION_COOKIE, '', { httpOnly: true, maxAge: 0 });
      setCookie(request, reply, CSRF_COOKIE, '', { httpOnly: false, maxAge: 0 });
      return reply.code(204).send();
    },
  });
}
