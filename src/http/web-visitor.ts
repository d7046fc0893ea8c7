import { said } from '../i18n/said.ts';
import type { Said } from '../i18n/said.ts';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type {} from '@fastify/multipart';
import { AppError } from '../errors.ts';
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
export function formTokenFor(
  visitor: Visitor,
  request: FastifyRequest,
  reply: FastifyReply,
  container: Container,
): string {
  let secret = visitor.browserSecret;
  if (secret === undefined) {
    secret = randomBytes(24).toString('base64url');
    reply.setCookie(FORM_COOKIE, secret, {
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure: request.protocol === 'https',
      maxAge: 86_400,
    });
  }
  return formToken(container.accounts.keys, secret);
}

/** This browser once it is signed out: anonymous, its forms' tokens made from its form cookie. */
export function signedOut(request: FastifyRequest): Visitor {
  const anonymous = request.cookies[FORM_COOKIE];
  return { user: null, browserSecret: anonymous === undefined || anonymous === '' ? undefined : anonymous };
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Who sent a POST that passed the website's check (guardPosts); null before it, or for an API client's JSON. */
    poster: Visitor | null;
  }
  interface FastifyContextConfig {
    /** The route also serves programs, with JSON bodies or none (POST /login, /logout): those need no form token. */
    readonly jsonClients?: boolean;
    /**
     * A multipart form read as it streams (an archive upload): its token is its first field,
     * checked by `acceptStreamedForm` before anything else of the form is read.
     */
    readonly streamedForm?: boolean;
  }
}

/**
 * A request another site made the browser send is refused: an Origin header, when sent, must be
 * this site's origin, scheme, host and port (`null`, what a sandboxed frame or a no-referrer page sends, is not), and a browser
 * that says the request is cross-site (Sec-Fetch-Site) is believed.
 */
function refuseForeignOrigin(request: FastifyRequest): void {
  const refuse = (what: Said): never => {
    throw new AppError(
      'csrf_failed',
      said`Cross-site request refused: ${what} is not this site. Send the form from the store's own page.`,
    );
  };
  if (request.headers['sec-fetch-site'] === 'cross-site') refuse(said`the page that sent it`);
  const origin = request.headers.origin;
  if (origin === undefined) return;
  let theirs = '';
  let ours = '';
  try {
    // Scheme, host and port, each compared (issue 49: https://host:port passed on an http store);
    // URL's origin writes a default port or not alike (Host: localhost:80, Origin: http://localhost).
    theirs = new URL(origin).origin;
    ours = new URL(`${request.protocol}://${request.host}`).origin;
  } catch {
    // `null`, or not a URL: not this site
  }
  if (theirs === '' || theirs === 'null' || theirs !== ours) refuse(said`Origin ${origin.slice(0, 100)}`);
}

/**
 * A program's request: a JSON body, or none. A browser sends JSON cross-site only after asking
 * (CORS), which these routes never allow; a form always has a content type.
 */
const isProgram = (request: FastifyRequest): boolean => {
  const type = request.headers['content-type'];
  return type === undefined || /^application\/json\s*(;|$)/i.test(type);
};

/**
 * The website's CSRF protection, in one place: every POST in the scope (the website's forms,
 * sign-in and sign-out) is refused unless it comes from this site (Origin) and carries the
 * form token made for this browser (its session, or its anonymous form cookie). A route that
 * declares `jsonClients` also takes JSON from programs, which the Origin rule alone guards. The
 * checked sender is on the request (`postedBy(request)`), so a handler never checks the token itself.
 */
export function guardPosts(scope: FastifyInstance, container: Container): void {
  scope.decorateRequest('poster', null);
  scope.addHook('preValidation', async (request) => {
    if (request.method !== 'POST') return;
    refuseForeignOrigin(request);
    if (request.routeOptions.config.jsonClients === true && isProgram(request)) return;
    const visitor = await visitorOf(request, container);
    if (request.routeOptions.config.streamedForm === true && request.isMultipart()) {
      streamedSenders.set(request, visitor);
      return;
    }
    const body = request.body as Record<string, unknown> | null | undefined;
    checkFormToken(container.accounts.keys, visitor.browserSecret, body?.[CSRF_FIELD]);
    request.poster = visitor;
  });
}

/** The senders of streamed forms whose token is still to be read (guardPosts, acceptStreamedForm). */
const streamedSenders = new WeakMap<FastifyRequest, Visitor>();

/**
 * A streamed form (`streamedForm`) is let in once its first field, which the page puts first, is
 * the form token made for its sender; from then on `postedBy(request)` gives the sender. Browsers
 * send a form's fields in the page's order.
 */
export function acceptStreamedForm(
  request: FastifyRequest,
  container: Container,
  first: { readonly name: string; readonly value: unknown } | null,
): void {
  const visitor = streamedSenders.get(request);
  if (visitor === undefined)
    throw new Error(`${request.routeOptions.url ?? ''} is not a streamed form behind the website's guard`);
  checkFormToken(container.accounts.keys, visitor.browserSecret, first?.name === CSRF_FIELD ? first.value : undefined);
  request.poster = visitor;
}

/** The sender of a posted form, as the website's guard checked them. */
export function postedBy(request: FastifyRequest): Visitor {
  if (request.poster === null)
    throw new Error(
      `${request.method} ${request.routeOptions.url ?? ''} is not behind the website's form guard (guardPosts)`,
    );
  return request.poster;
}
