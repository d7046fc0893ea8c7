import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ListingName, Listings, Validators } from '../domain/listings/listings.ts';
import { PLATFORM_VERSION_PATTERN } from '../domain/versions/semantic-version.ts';
import { LISTING_CACHING, isNotModified } from './conditional-get.ts';
import { corsHeadersFor } from './cors.ts';
import { callerRequestId, newRequestId } from './request-id.ts';

/** `include_enterprise`: true or 1, in any case; anything else (or nothing) leaves enterprise-only apps out. */
export function includesEnterprise(value: string | undefined): boolean {
  return /^(true|1)$/i.test(value ?? '');
}

/** The listing a path names, as the listing routes read it; null for anything else. */
export function listingOf(url: string): ListingName | null {
  const queryAt = url.indexOf('?');
  let path = queryAt === -1 ? url : url.slice(0, queryAt);
  // The router's own tolerance: doubled slashes and one trailing slash.
  if (path.includes('//')) path = path.replace(/\/{2,}/g, '/');
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  if (!path.startsWith('/api/v1/')) return null;
  const rest = path.slice(8);
  switch (rest) {
    case 'ratings.json':
      return { kind: 'ratings' };
    case 'categories.json':
      return { kind: 'categories' };
    case 'platforms.json':
      return { kind: 'platforms' };
    case 'discover.json':
      return { kind: 'discover' };
  }
  let platform: string | undefined;
  const exApps = rest === 'appapi_apps.json';
  if (rest !== 'apps.json' && !exApps) {
    const match = /^platform\/([^/]+)\/apps\.json$/.exec(rest);
    if (match === null || !PLATFORM_VERSION_PATTERN.test(match[1] ?? '')) return null;
    platform = match[1];
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
}

/**
 * Answers a conditional GET or HEAD of a listing whose validators still match with a 304, before
 * fastify routes it: the version is known in memory, so nothing else is needed. It carries what
 * the route's 304 carries (ETag, Last-Modified, Vary, Cache-Control, CORS, nosniff), and an
 * X-Request-Id when there is one to join a log with: the caller's own, echoed, or the id of the
 * sampled 304s that are logged. The others are in no log line, so an id made for them would name
 * nothing (and making one cost a 304 about 5 % of its rate, docs/decisions.md). Anything else (a
 * changed listing, no validator, an odd path) goes to the routes.
 */
export function notModifiedFastPath(listings: Pick<Listings, 'validatorsOf' | 'stillValid'>, options: FastPathOptions): { answer: (request: IncomingMessage, response: ServerResponse) => boolean; stop: () => void } {
  let enabled = true;
  // Per address asked (servers poll a handful): its validators and the 304's headers, made once
  // per content version and day. Bounded: cleared when full.
  // Two header arrays per address: without a request id, and with one in the last slot, written
  // just before writeHead reads it. A 304 allocates no headers of its own (Node copies them out at once).
  const known = new Map<string, { validators: Validators; headers: string[]; withId: string[] }>();
  const validatorsFor = (url: string): { validators: Validators; headers: string[]; withId: string[] } | null => {
    const held = known.get(url);
    if (held !== undefined && listings.stillValid(held.validators)) return held;
    const name = listingOf(url);
    const validators = name === null ? undefined : listings.validatorsOf(name);
    if (validators === undefined) return null;
    const headers = Object.entries({ etag: validators.etag, 'last-modified': validators.changedAt.toUTCString(), ...LISTING_CACHING, ...corsHeadersFor(url), 'x-content-type-options': 'nosniff' }).flat();
    const made = { validators, headers, withId: [...headers, 'x-request-id', ''] };
    if (known.size >= KNOWN_ADDRESSES) known.clear();
    known.set(url, made);
    return made;
  };
  const answer = (request: IncomingMessage, response: ServerResponse): boolean => {
    if (!enabled || (request.method !== 'GET' && request.method !== 'HEAD')) return false;
    const { headers } = request;
    const ifNoneMatch = headers['if-none-match'];
    if (ifNoneMatch === undefined && headers['if-modified-since'] === undefined) return false;
    const url = request.url ?? '';
    const found = validatorsFor(url);
    if (found === null) return false;
    const { etag, changedAt } = found.validators;
    // The usual poll sends back exactly the ETag it was given: one comparison.
    if (ifNoneMatch !== etag && !isNotModified(headers, etag, changedAt)) return false;
    const logged = options.logRate > 0 && Math.random() < options.logRate;
    const reqId = callerRequestId(headers) ?? (logged ? newRequestId() : undefined);
    if (reqId === undefined) response.writeHead(304, found.headers);
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
