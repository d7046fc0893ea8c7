import { Type } from 'typebox';
import type { Container } from '../../../container.ts';
import { login, logout } from '../../../domain/accounts/sessions.ts';
import { installFormParser } from '../../body-parsers.ts';
import { csrfHeader, readSessionCookie, setSessionCookies } from '../../cookies.ts';
import { AUTH_ERRORS, BODY_ERRORS, errorResponses } from '../../schemas.ts';
import { sendEmpty } from '../../reply.ts';
import type { AppServer } from '../../types.ts';
import { EmptyBody, LoginBody, LoginResponse } from './accounts.schemas.ts';

/**
 * Web sessions: `POST /login` sets an HttpOnly cookie, `POST /logout` ends it. Both take forms and
 * JSON; they are in the website's scope, whose guard refuses another site's requests (Origin)
 * and forms without this browser's form token (login CSRF).
 */
export async function sessionRoutes(app: AppServer, container: Container): Promise<void> {
  const deps = container.accounts;
  installFormParser(app);

  app.post('/login', {
    config: { jsonClients: true },
    schema: {
      summary: 'Sign in with username and password; sets the session cookie',
      tags: ['accounts'],
      body: LoginBody,
      response: { 200: LoginResponse, ...errorResponses(BODY_ERRORS, AUTH_ERRORS, 'csrf_failed') },
    },
    handler: async (request, reply) => {
      const { username, password, code } = request.body;
      const session = await login(username, password, request.ip, deps, code);
      setSessionCookies(request, reply, session);
      reply.header('cache-control', 'no-store');
      return {
        username: session.user.username,
        csrfToken: session.csrfToken,
        expiresAt: session.expiresAt.toISOString(),
      };
    },
  });

  app.post('/logout', {
    config: { jsonClients: true },
    schema: {
      summary: 'End the session (needs X-CSRF-Token); clears the cookies',
      tags: ['accounts'],
      body: EmptyBody,
      response: {
        204: Type.Null({ description: 'Signed out (also when there was no session)' }),
        ...errorResponses(BODY_ERRORS, 'csrf_failed'),
      },
    },
    handler: async (request, reply) => {
      const sessionId = readSessionCookie(request);
      if (sessionId !== undefined) await logout(sessionId, csrfHeader(request), deps);
      setSessionCookies(request, reply, null);
      return sendEmpty(reply, 204);
    },
  });
}
