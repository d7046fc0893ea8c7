import { said } from '../i18n/said.ts';
import { userActing } from '../domain/audit/audit.ts';
import type { Acting } from '../domain/audit/audit.ts';
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { Container } from '../container.ts';
import { authenticateWithPassword, authenticateWithToken } from '../domain/accounts/authenticate.ts';
import { checkCsrf, resolveSession } from '../domain/accounts/sessions.ts';
import type { User } from '../domain/accounts/user.ts';
import { isBase64 } from '../domain/encodings.ts';
import { requireScope } from '../domain/accounts/token-scopes.ts';
import { refuseBasicWrite } from '../domain/accounts/two-factor.ts';
import type { TokenScope } from '../domain/accounts/token-scopes.ts';
import { AppError } from '../errors.ts';
import { csrfHeader, readSessionCookie } from './cookies.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the authentication pre-handler of authenticated routes. */
    user?: User;
  }
}

export type AuthScheme = 'basic' | 'token' | 'session';
/**
 * What a scoped token needs for a route: a scope, 'any' (every token, as revoking itself) or
 * 'full' (only unscoped credentials: Basic, the session, the account's unscoped token).
 */
export type RouteScope = TokenScope | 'any' | 'full';
export const WWW_AUTHENTICATE = 'Basic realm="appstore", Token';

type Credentials = { scheme: 'basic'; username: string; password: string } | { scheme: 'token'; token: string };

const SCHEME_NAMES: Record<AuthScheme, string> = { basic: 'Basic', token: 'Token', session: 'a session (POST /login)' };

function accepted(schemes: readonly AuthScheme[]): string {
  return schemes.map((s) => SCHEME_NAMES[s]).join(' or ');
}

/** Parses `Authorization: Basic …`, `Token …` or `Bearer …`; refuses anything malformed. */
export function parseAuthorization(header: string): Credentials {
  const match = /^([A-Za-z]+) +(\S+) *$/.exec(header);
  if (match === null) {
    throw new AppError(
      'not_authenticated',
      said`Malformed Authorization header: expected "Basic <base64 of user:password>", "Token <token>" or "Bearer <token>".`,
    );
  }
  const [, rawScheme = '', value = ''] = match;
  const scheme = rawScheme.toLowerCase();
  if (scheme === 'token' || scheme === 'bearer') return { scheme: 'token', token: value };
  if (scheme !== 'basic') {
    throw new AppError(
      'not_authenticated',
      said`Unsupported authorization scheme '${rawScheme.slice(0, 20)}': use Basic or Token.`,
    );
  }
  if (!isBase64(value, true)) {
    throw new AppError('not_authenticated', said`Malformed Basic credentials: the value after "Basic" is not base64.`);
  }
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0)
    throw new AppError('not_authenticated', said`Malformed Basic credentials: expected base64 of "username:password".`);
  return { scheme: 'basic', username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Identifies the caller by one of the schemes the route accepts, or refuses with 401
 * (429 when failed attempts are rate-limited). A session may change state only with its CSRF token.
 */
export async function identify(
  request: FastifyRequest,
  container: Container,
  schemes: readonly AuthScheme[],
): Promise<User> {
  const deps = container.accounts;
  const header = request.headers.authorization;
  if (header !== undefined) {
    const credentials = parseAuthorization(header);
    if (!schemes.includes(credentials.scheme)) {
      throw new AppError(
        'not_authenticated',
        said`This route accepts ${accepted(schemes)} authentication, not ${SCHEME_NAMES[credentials.scheme]}.`,
      );
    }
    if (credentials.scheme === 'token') return authenticateWithToken(credentials.token, request.ip, deps);
    const user = await authenticateWithPassword(credentials.username, credentials.password, request.ip, deps);
    // Basic cannot carry a second factor: with one (or one required), it may only read.
    if (!SAFE_METHODS.has(request.method)) await refuseBasicWrite(user, deps);
    return user;
  }
  const sessionId = schemes.includes('session') ? readSessionCookie(request) : undefined;
  if (sessionId !== undefined) {
    const session = await resolveSession(sessionId, deps);
    if (session === null)
      throw new AppError('not_authenticated', said`Your session has expired or ended: sign in again with POST /login.`);
    if (!SAFE_METHODS.has(request.method)) checkCsrf(session, csrfHeader(request), deps);
    return session.user;
  }
  throw new AppError(
    'not_authenticated',
    said`Authentication credentials were not provided: this route needs ${accepted(schemes)} authentication.`,
  );
}

/** The OpenAPI security of a route that `requireUser(container, schemes)` guards (the website's session is not an API scheme). */
export function apiSecurity(schemes: readonly AuthScheme[]): Array<Record<string, string[]>> {
  return schemes.filter((scheme) => scheme !== 'session').map((scheme) => ({ [scheme]: [] }));
}

/** The schemes the API's security declarations name (components.securitySchemes of the OpenAPI document). */
export const SECURITY_SCHEMES = {
  basic: {
    type: 'http',
    scheme: 'basic',
    description: 'Username and password (accounts made through an external login have no password: they use a token).',
  },
  token: {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description:
      'The header `Authorization: Token TOKEN` (or `Authorization: Bearer TOKEN`, as many tools send it), with the token from `POST /api/v1/token` or the account page. Send it instead of a password. Scoped tokens (`apst_…`, made on /account/tokens or with `POST /api/v1/tokens`) may use only the routes their scopes name (403 `insufficient_scope` otherwise); trusted publishing gives CI jobs `aptp_…` tokens that publish one app. An account with a second factor cannot write with Basic: it uses a token.',
  },
} as const;

/**
 * Route hook (`onRequest`, before the body is read or validated, so that a request without valid
 * credentials gets 401 whatever its body): puts the authenticated user on `request.user`.
 */
export function requireUser(
  container: Container,
  schemes: readonly AuthScheme[],
  scope: RouteScope = 'full',
): onRequestAsyncHookHandler & { readonly authSchemes: readonly AuthScheme[] } {
  const guard = async (request: FastifyRequest, _reply: FastifyReply) => {
    const user = await identify(request, container, schemes);
    if (scope === 'full' && user.limits !== undefined) {
      throw new AppError(
        'insufficient_scope',
        said`This route needs the account's full rights, which no scoped token has: use Basic authentication or the account's unscoped token.`,
        { scope: [said`needs an unscoped credential`] },
      );
    }
    if (scope !== 'full' && scope !== 'any') requireScope(user, scope);
    request.user = user;
  };
  // Read by `declareSecurity`, so the OpenAPI document says how each route authenticates.
  return Object.assign(guard, { authSchemes: schemes });
}

/** Gives every route guarded by `requireUser` its OpenAPI `security`, from the guard itself: the document cannot drift from the code. */
export function declareSecurity(route: { onRequest?: unknown; schema?: Record<string, unknown> }): void {
  const hooks = Array.isArray(route.onRequest) ? (route.onRequest as unknown[]) : [route.onRequest];
  const guard = hooks.find(
    (hook): hook is { authSchemes: readonly AuthScheme[] } => typeof hook === 'function' && 'authSchemes' in hook,
  );
  if (guard !== undefined && route.schema !== undefined) route.schema['security'] = apiSecurity(guard.authSchemes);
}

export function currentUser(request: FastifyRequest): User {
  if (request.user === undefined) throw new Error('route has no authentication hook');
  return request.user;
}

/** Who acts in this request, for the audit log: the authenticated user, the client's address, the request id. */
export function actingUser(request: FastifyRequest): Acting {
  return userActing(currentUser(request), request.ip, request.id);
}
