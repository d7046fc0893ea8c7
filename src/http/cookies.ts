import { randomBytes } from 'node:crypto';
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
export function setSessionCookies(
  request: FastifyRequest,
  reply: FastifyReply,
  session: { sessionId: string; csrfToken: string } | null,
): void {
  const maxAge = session === null ? 0 : Math.floor(SESSION_LIFETIME_MS / 1000);
  const options = { path: '/', maxAge, sameSite: 'lax', secure: request.protocol === 'https' } as const;
  reply.setCookie(SESSION_COOKIE, session?.sessionId ?? '', { ...options, httpOnly: true });
  reply.setCookie(CSRF_COOKIE, session?.csrfToken ?? '', { ...options, httpOnly: false });
}

/** The browser's secret for external sign-ins: a flow must end in the browser that began it (HttpOnly, an hour, only under /account/external). */
export const LOGIN_FLOW_COOKIE = 'appstore_login';
const LOGIN_FLOW_PATH = '/account/external';

export function readLoginFlowCookie(request: FastifyRequest): string | undefined {
  const value = request.cookies[LOGIN_FLOW_COOKIE];
  return value === undefined || value === '' ? undefined : value;
}

/** This browser's login-flow secret, made (and set) when it has none. */
export function loginFlowSecret(request: FastifyRequest, reply: FastifyReply): string {
  const existing = readLoginFlowCookie(request);
  if (existing !== undefined && /^[\w-]{32,64}$/.test(existing)) return existing;
  const secret = randomBytes(32).toString('base64url');
  reply.setCookie(LOGIN_FLOW_COOKIE, secret, {
    path: LOGIN_FLOW_PATH,
    httpOnly: true,
    sameSite: 'lax',
    secure: request.protocol === 'https',
    maxAge: 3600,
  });
  return secret;
}

/** A sign-in waiting for its second factor (issue 53): HttpOnly, ten minutes, only under /account/login. */
export const SECOND_FACTOR_COOKIE = 'appstore_second_factor';
const SECOND_FACTOR_PATH = '/account/login';

export function readSecondFactorCookie(request: FastifyRequest): string | undefined {
  const value = request.cookies[SECOND_FACTOR_COOKIE];
  return value === undefined || value === '' ? undefined : value;
}

export function setSecondFactorCookie(request: FastifyRequest, reply: FastifyReply, id: string | null): void {
  reply.setCookie(SECOND_FACTOR_COOKIE, id ?? '', {
    path: SECOND_FACTOR_PATH,
    httpOnly: true,
    sameSite: 'lax',
    secure: request.protocol === 'https',
    maxAge: id === null ? 0 : 600,
  });
}
