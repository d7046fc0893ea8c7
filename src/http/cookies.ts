import type { FastifyReply, FastifyRequest } from 'fastify';

export const SESSION_COOKIE = 'appstore_session';
export const CSRF_COOKIE = 'appstore_csrf';

/** The value of one cookie of the request, or undefined. */
export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const index = part.indexOf('=');
    if (index > 0 && part.slice(0, index).trim() === name) return part.slice(index + 1).trim();
  }
  return undefined;
}

interface CookieOptions {
  readonly httpOnly: boolean;
  /** Seconds; 0 deletes the cookie. */
  readonly maxAge: number;
}

/** SameSite=Lax always; Secure when the request came over HTTPS (directly or via a trusted proxy). */
export function setCookie(request: FastifyRequest, reply: FastifyReply, name: string, value: string, options: CookieOptions): void {
  const attributes = [`${name}=${value}`, 'Path=/', `Max-Age=${options.maxAge}`, 'SameSite=Lax'];
  if (options.httpOnly) attributes.push('HttpOnly');
  if (request.protocol === 'https') attributes.push('Secure');
  const existing = reply.getHeader('set-cookie');
  const list = existing === undefined ? [] : Array.isArray(existing) ? existing : [String(existing)];
  reply.header('set-cookie', [...list, attributes.join('; ')]);
}
