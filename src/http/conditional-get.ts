import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Listing } from '../domain/listings/listings.ts';
import type { Encoding } from '../domain/listings/listing-cache.ts';
import { ChunkStream } from './chunk-stream.ts';

/**
 * Sends one listing: answers a conditional request from the content version alone (no
 * rendering, no other database work), otherwise the body rendered and compressed once per
 * content version, in the best encoding the client accepts.
 */
/** Every listing response's caching headers, the 304s answered before routing included. */
export const LISTING_CACHING = { vary: 'Accept-Encoding', 'cache-control': 'public, no-cache' } as const;

/** A listing answered for a subscription key (issue 52): for that server only, and varying with the key. */
export const KEYED_LISTING_CACHING = {
  vary: 'Accept-Encoding, X-NC-Subscription-Key',
  'cache-control': 'private, no-cache',
} as const;

export async function sendListing(
  request: FastifyRequest,
  reply: FastifyReply,
  listing: Listing,
  caching: typeof LISTING_CACHING | typeof KEYED_LISTING_CACHING = LISTING_CACHING,
): Promise<FastifyReply> {
  reply.headers(caching);
  if (isNotModified(request.headers, listing.etag, listing.changedAt)) {
    reply.header('etag', listing.etag).header('last-modified', listing.changedAt.toUTCString());
    return reply.code(304).send();
  }
  const accepted = request.headers['accept-encoding'];
  // Brotli is made (in the background) only for a client that would take it.
  const rendered = await listing.body(chooseEncoding(accepted, { br: true, gzip: true }) === 'br');
  const encoding = chooseEncoding(accepted, {
    br: rendered.br !== null,
    gzip: rendered.gzip !== null,
  });
  const compressed = encoding === 'identity' ? null : rendered[encoding];
  reply
    .header('etag', rendered.etag)
    .header('last-modified', rendered.stamp.changedAt.toUTCString())
    .header('content-type', 'application/json; charset=utf-8')
    .header('content-length', compressed?.byteLength ?? rendered.length);
  reply.code(200);
  if (compressed !== null) reply.header('content-encoding', encoding);
  // HEAD: the headers only. Fastify keeps the Content-Length given for a stream, and drains it:
  // an empty one, so nothing is sent or decompressed for nothing.
  if (request.method === 'HEAD') return reply.send(Readable.from([]));
  if (compressed !== null) {
    const [only] = compressed.chunks;
    return reply.send(compressed.chunks.length === 1 && only !== undefined ? only : new ChunkStream(compressed.chunks));
  }
  return reply.send(rendered.identity());
}

/** RFC 9110 §13.1.2/§13.1.3: If-None-Match (weak comparison, `*`) first; else If-Modified-Since. */
export function isNotModified(headers: IncomingHttpHeaders, etag: string, lastModified: Date): boolean {
  const ifNoneMatch = headers['if-none-match'];
  if (ifNoneMatch !== undefined) return etagListMatches(ifNoneMatch, etag);
  const ifModifiedSince = headers['if-modified-since'];
  if (ifModifiedSince === undefined) return false;
  const since = Date.parse(ifModifiedSince);
  if (Number.isNaN(since)) return false;
  return Math.floor(lastModified.getTime() / 1000) <= Math.floor(since / 1000);
}

export function etagListMatches(header: string, etag: string): boolean {
  const opaque = (tag: string): string => tag.trim().replace(/^W\//, '');
  const wanted = opaque(etag);
  return header.split(',').some((candidate) => {
    const tag = candidate.trim();
    return tag === '*' || opaque(tag) === wanted;
  });
}

/**
 * Picks the response encoding from Accept-Encoding: the highest q among the compressions we
 * have, br before gzip on ties; identity when none is accepted or the header is absent.
 */
export function chooseEncoding(header: string | undefined, available: { br: boolean; gzip: boolean }): Encoding {
  if (header === undefined || header.trim() === '') return 'identity';
  const weights = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    if (name === '') continue;
    let q = 1;
    for (const param of params) {
      const [key, value] = param.trim().split('=');
      if (key === 'q' && value !== undefined) q = Number.isFinite(Number(value)) ? Number(value) : 0;
    }
    weights.set(name.trim(), q);
  }
  const weightOf = (name: string): number => weights.get(name) ?? weights.get('*') ?? 0;
  // A client that accepts a compression we have gets it, whatever q it gives identity.
  let best: Encoding = 'identity';
  let bestWeight = 0;
  for (const candidate of ['gzip', 'br'] as const) {
    if (!available[candidate]) continue;
    const weight = weightOf(candidate);
    if (weight > 0 && weight >= bestWeight) {
      best = candidate;
      bestWeight = weight;
    }
  }
  return best;
}
