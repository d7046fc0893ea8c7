import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Container } from '../container.ts';
import { checkFormToken, CSRF_FIELD, formToken } from '../domain/accounts/form-token.ts';
import { resolveSession } from '../domain/accounts/sessions.ts';
import type { User } from '../domain/accounts/user.ts';
import { readSessionCookie } from './cookies.ts';

/** A random id of an anonymous browser: what its forms' CSRF tokens are made from (HttpOnly; a day). */
export const FORM_COOKIE = 'appstore_form';

/** Who is looking at a page, and the token its forms carry. */
export interface Visitor {
  readonly user: User | null;
  /** The session id when signed in, else the anonymous form cookie (undefined until a form page sets it). */
  readonly browserSecret: string | undefined;
}

/** The signed-in user (a live session cookie), or an anonymous visitor. */
export async function visitorOf(request: FastifyRequest, container: Container): Promise<Visitor> {
  const sessionId = readSessionCookie(request);
  if (sessionId !== undefined && sessionId !== '') {
    const session = await resolveSession(sessionId, container.accounts);
    if (session !== null) return { user: session.user, browserSecret: sessionId };
  }
  return signedOut(request);
}

/**
 * The CSRF token for the forms of this page. An anonymous browser without a form cookie gets one
 * now (pages without forms set no cookie).
 */
export function formTokenFor(visitor: Visitor, request: FastifyRequest, reply: FastifyReply, container: Container): string {
  let secret = visitor.browserSecret;
  if (secret === undefined) {
    secret = randomBytes(24).toString('base64url');
    reply.setCookie(FORM_COOKIE, secret, { path: '/', httpOnly: true, sameSite: 'lax', secure: request.protocol === 'https', maxAge: 86_400 });
  }
  return formToken(container.accounts.keys, secret);
}

/** This browser once it is signed out: anonymous, its forms' tokens made from its form cookie. */
export function signedOut(request: FastifyRequest): Visitor {
  const anonymous = request.cookies[FORM_COOKIE];
  return { user: null, browserSecret: anonymous === undefined || anonymous === '' ? undefined : anonymous };
}

/** Refuses a posted form whose CSRF token was not made for this visitor's browser. */
export function checkForm(visitor: Visitor, request: FastifyRequest, container: Container): void {
  const body = request.body as Record<string, unknown> | null | undefined;
  checkFormToken(container.accounts.keys, visitor.browserSecret, body?.[CSRF_FIELD]);
}

/** Checks a posted form's CSRF token and returns who sent it. */
export async function formVisitor(request: FastifyRequest, container: Container): Promise<Visitor> {
  const visitor = await visitorOf(request, container);
  checkForm(visitor, request, container);
  return visitor;
}
