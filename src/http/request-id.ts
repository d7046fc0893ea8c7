import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,64}$/;

// New ids have a UUID's shape (8-4-4-4-12 hex digits): 80 random bits drawn once per process, then
// a 48-bit counter. Unique within the process and apart across processes and restarts, without
// drawing random bytes for every request (a 304's profile showed randomUUID at 1.7 % of its time).
// The counter's last three hex digits come from a table and the rest is remade only when they
// wrap: formatting the whole counter per request (toString(16), padStart) cost about 2 % of the
// 304s' rate, measured store against store side by side (bench/limits.md).
const LOW_DIGITS = 3;
const LOW_SPAN = 16 ** LOW_DIGITS;
const LOW = Array.from({ length: LOW_SPAN }, (_, n) => n.toString(16).padStart(LOW_DIGITS, '0'));
const COUNTER_SPAN = 2 ** 48;

/** A maker of new ids: the process's part, then a counter from `start` (tests start it near a wrap). */
export function requestIdMaker(processPart: string, start = 0): () => string {
  let counter = start;
  let head = '';
  const remakeHead = (): void => {
    head =
      processPart +
      Math.floor(counter / LOW_SPAN)
        .toString(16)
        .padStart(12 - LOW_DIGITS, '0');
  };
  remakeHead();
  return () => {
    counter += 1;
    if (counter === COUNTER_SPAN) counter = 0;
    const low = counter % LOW_SPAN;
    if (low === 0) remakeHead();
    return head + LOW[low];
  };
}

const random = randomBytes(10).toString('hex');
/** A new request id: this process's part and the next count. */
export const newRequestId = requestIdMaker(
  `${random.slice(0, 8)}-${random.slice(8, 12)}-${random.slice(12, 16)}-${random.slice(16, 20)}-`,
);

/** The caller's X-Request-Id when it is sane (1–64 of `[A-Za-z0-9._:-]`); undefined otherwise. */
export function callerRequestId(headers: IncomingHttpHeaders): string | undefined {
  const given = headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID_PATTERN.test(given) ? given : undefined;
}

/** A caller's X-Request-Id is kept when it is sane, so logs can be joined across proxies; else a new one. */
export function requestIdFor(headers: IncomingHttpHeaders): string {
  return callerRequestId(headers) ?? newRequestId();
}
