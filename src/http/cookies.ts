import type { FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_LIFETIME_MS } from '../domain/accounts/sessions.ts';

/** The session id: HttpOnly, so scripts never see it. */
export const SESSION_COOKIE = 'appstore_session';
/** The CSRF token, readable by the site's own scripts, which send it back as X-CSRF-Token. */
export const CSRF_COOKIE = 'appstore_csrf';

export function readSessionCookie(request: FastifyRequest): string | undefined {
  return request.cookies[SESSION_COOKIE];
}

/** The X-CSRF-Token header: what a session request that changes state must send. */
export function csrfHeader(request: FastifyRequest): string | undefined {
  const value = request.headers['x-csrf-token'];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Sets the session cookies, or clears them (`null`). SameSite=Lax always; Secure when the
 * request came over HTTPS (directly or through a trusted proxy).
 */
export function setSessionCookies(request: FastifyRequest, reply: FastifyReply, session: { sessionId: string; csrfToken: string } | null): void {
  const maxAge = session === null ? 0 : Math.floor(SESSION_LIFETIME_MS / 1000);
  const options = { path: '/', maxAge, sameSite: 'lax', secure: request.protocol === 'https' } as const;
  reply.setCookie(SESSION_COOKIE, session?.sessionId ?? '', { ...options, httpOnly: true });
  reply.setCookie(CSRF_COOKIE, session?.csrfToken ?? '', { ...options, httpOnly: false });
}
