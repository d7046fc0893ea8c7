import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,64}$/;

/** A caller's X-Request-Id is kept when it is sane, so logs can be joined across proxies; else a new one. */
export function requestIdFor(headers: IncomingHttpHeaders): string {
  const given = headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID_PATTERN.test(given) ? given : randomUUID();
}
