import { validateHeaderName, validateHeaderValue } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { remember } from '../domain/bounded-map.ts';
import type { ListingName, Listings, Validators } from '../domain/listings/listings.ts';
import { PLATFORM_VERSION_PATTERN } from '../domain/versions/semantic-version.ts';
import { LISTING_CACHING, isNotModified } from './conditional-get.ts';
import { corsHeadersFor } from './cors.ts';
import { LISTING_PATHS, WHOLE_LISTINGS } from './listing-addresses.ts';
import { callerRequestId, newRequestId } from './request-id.ts';

/** `include_enterprise`: true or 1, in any case; anything else (or nothing) leaves enterprise-only apps out. */
export function includesEnterprise(value: string | undefined): boolean {
  return /^(true|1)$/i.test(value ?? '');
}

const WHOLE_BY_PATH: ReadonlyMap<string, ListingName> = new Map(
  WHOLE_LISTINGS.map((kind) => [LISTING_PATHS[kind], { kind }] as const),
);
const [PLATFORM_BEFORE = '', PLATFORM_AFTER = ''] = LISTING_PATHS.platformApps.split(':version');

/** The listing a path names, as the listing routes read it (listing-addresses.ts); null for anything else. */
export function listingOf(url: string): ListingName | null {
  const queryAt = url.indexOf('?');
  let path = queryAt === -1 ? url : url.slice(0, queryAt);
  // The router's own tolerance: doubled slashes and one trailing slash.
  if (path.includes('//')) path = path.replace(/\/{2,}/g, '/');
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  const whole = WHOLE_BY_PATH.get(path);
  if (whole !== undefined) return whole;
  let platform: string | undefined;
  const exApps = path === LISTING_PATHS.exApps;
  if (path !== LISTING_PATHS.apps && !exApps) {
    if (!path.startsWith(PLATFORM_BEFORE) || !path.endsWith(PLATFORM_AFTER)) return null;
    platform = path.slice(PLATFORM_BEFORE.length, path.length - PLATFORM_AFTER.length);
    if (platform.includes('/') || !PLATFORM_VERSION_PATTERN.test(platform)) return null;
  }
  const values = queryAt === -1 ? [] : new URLSearchParams(url.slice(queryAt + 1)).getAll('include_enterprise');
  // Repeated, the route refuses it (400): leave that to the route.
  if (values.length > 1) return null;
  const includeEnterprise = includesEnterprise(values[0]);
  if (exApps) return { kind: 'apps', includeEnterprise, exApps };
  return platform === undefined ? { kind: 'apps', includeEnterprise } : { kind: 'apps', includeEnterprise, platform };
}

/** Addresses whose 304 headers are kept (a server polls with one or two; odd spellings add a few). */
const KNOWN_ADDRESSES = 256;

export interface FastPathOptions {
  /** The share of these 304s logged (0 to 1): all of them is a line per poll of every server. */
  readonly logRate: number;
  readonly log: (entry: { reqId: string; url: string; statusCode: number; sampled: number }) => void;
  /**
   * The server's keep-alive timeout (its `keepAliveTimeout`), which Node names in the Keep-Alive
   * header of every kept-alive answer. The whole 304 assumes the server sets no
   * `maxRequestsPerSocket` (createNodeServer does not): with one, Node would add `, max=N` and
   * close at the limit, which the whole 304 would have to do too.
   */
  readonly keepAliveTimeoutMs: number;
}

/** What the fast path keeps per address: the validators, and the 304 made from them. */
interface Known {
  readonly validators: Validators;
  /** The headers, for writeHead. */
  readonly headers: string[];
  /** The same with an X-Request-Id in the last slot, written just before writeHead reads it. */
  readonly withId: string[];
  /** The status line and headers as Node writes them, up to the Date header. */
  readonly head: string;
  /** The whole 304 of the second `second` (a Unix time in seconds): `head`, Date, Connection, Keep-Alive. */
  second: number;
  whole: string;
}

/**
 * The 304 as Node's writeHead would write it for a kept-alive HTTP/1.1 request: the status line,
 * the headers in order, then Date, Connection and Keep-Alive, which Node adds itself
 * (node:_http_outgoing, _storeHeader). Made once per address and second, it is handed to Node
 * whole (the ServerResponse's `_header`, which `end` sends as it is), so a 304 skips the
 * per-request assembly and checking of every header name and value: each is checked once, with
 * Node's own checks, when the address's headers are made (`headOf`).
 */
function wholeResponse(head: string, second: number, keepAliveSeconds: number): string {
  return `${head}Date: ${new Date(second * 1000).toUTCString()}\r\nConnection: keep-alive\r\nKeep-Alive: timeout=${keepAliveSeconds}\r\n\r\n`;
}

/** The status line and header lines; throws as writeHead would on a name or value Node refuses (a line break, say). */
const headOf = (headers: readonly string[]): string => {
  let head = 'HTTP/1.1 304 Not Modified\r\n';
  for (let i = 0; i + 1 < headers.length; i += 2) {
    const name = headers[i] ?? '';
    const value = headers[i + 1] ?? '';
    validateHeaderName(name);
    validateHeaderValue(name, value);
    head += `${name}: ${value}\r\n`;
  }
  return head;
};

/**
 * Answers a conditional GET or HEAD of a listing whose validators still match with a 304, before
 * fastify routes it: the version is known in memory, so nothing else is needed. It carries what
 * the route's 304 carries (ETag, Last-Modified, Vary, Cache-Control, CORS, nosniff), and an
 * X-Request-Id when there is one to join a log with: the caller's own, echoed, or the id of the
 * sampled 304s that are logged. The others are in no log line, so an id made for them would name
 * nothing (and making one cost a 304 about 5 % of its rate, docs/decisions.md). Anything else (a
 * changed listing, no validator, an odd path) goes to the routes.
 */
export function notModifiedFastPath(
  listings: Pick<Listings, 'validatorsOf' | 'stillValid'>,
  options: FastPathOptions,
): { answer: (request: IncomingMessage, response: ServerResponse) => boolean; stop: () => void } {
  let enabled = true;
  // Per address asked (servers poll a handful): its validators and the 304 made from them (Known),
  // once per content version and day. Bounded: cleared when full. A 304 allocates no headers of
  // its own: the whole one is a kept string, and writeHead copies the kept arrays out at once.
  const known = new Map<string, Known>();
  const keepAliveSeconds = Math.floor(options.keepAliveTimeoutMs / 1000);
  // Node writes `timeout=0` for a keep-alive under a second; such a server answers through writeHead.
  const wholeAllowed = keepAliveSeconds > 0;
  const validatorsFor = (url: string): Known | null => {
    const held = known.get(url);
    if (held !== undefined && listings.stillValid(held.validators)) return held;
    const name = listingOf(url);
    const validators = name === null ? undefined : listings.validatorsOf(name);
    if (validators === undefined) return null;
    const headers = Object.entries({
      etag: validators.etag,
      'last-modified': validators.changedAt.toUTCString(),
      ...LISTING_CACHING,
      ...corsHeadersFor(url),
      'x-content-type-options': 'nosniff',
    }).flat();
    let head: string;
    try {
      head = headOf(headers);
    } catch {
      return null; // a header Node would refuse: the routes answer (and say so), not this path
    }
    return remember(
      known,
      url,
      { validators, headers, withId: [...headers, 'x-request-id', ''], head, second: -1, whole: '' },
      KNOWN_ADDRESSES,
    );
  };
  const answer = (request: IncomingMessage, response: ServerResponse): boolean => {
    if (!enabled || (request.method !== 'GET' && request.method !== 'HEAD')) return false;
    const { headers } = request;
    const ifNoneMatch = headers['if-none-match'];
    if (ifNoneMatch === undefined && headers['if-modified-since'] === undefined) return false;
    // A subscription key may list other apps (issue 52): the routes check it.
    if (headers['x-nc-subscription-key'] !== undefined) return false;
    const url = request.url ?? '';
    const found = validatorsFor(url);
    if (found === null) return false;
    const { etag, changedAt } = found.validators;
    // The usual poll sends back exactly the ETag it was given: one comparison.
    if (ifNoneMatch !== etag && !isNotModified(headers, etag, changedAt)) return false;
    const logged = options.logRate > 0 && Math.random() < options.logRate;
    const reqId = callerRequestId(headers) ?? (logged ? newRequestId() : undefined);
    // The usual poll (HTTP/1.1, kept alive, no id to echo): the 304 made whole. Anything else
    // (a connection to close, HTTP/1.0, an id) through writeHead, which decides those headers.
    if (
      reqId === undefined &&
      response.shouldKeepAlive &&
      request.httpVersionMinor === 1 &&
      request.httpVersionMajor === 1 &&
      wholeAllowed
    ) {
      const second = Math.floor(Date.now() / 1000);
      if (found.second !== second) {
        found.whole = wholeResponse(found.head, second, keepAliveSeconds);
        found.second = second;
      }
      response.statusCode = 304;
      (response as unknown as { _header: string })._header = found.whole;
    } else if (reqId === undefined) response.writeHead(304, found.headers);
    else {
      found.withId[found.withId.length - 1] = reqId;
      response.writeHead(304, found.withId);
    }
    response.end();
    if (logged && reqId !== undefined) options.log({ reqId, url, statusCode: 304, sampled: options.logRate });
    return true;
  };
  // Once shutdown begins, requests go to fastify, which answers them with Connection: close.
  return { answer, stop: () => void (enabled = false) };
}
