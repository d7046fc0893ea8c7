import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import type { ByteChunks } from '../../src/domain/listings/gzip-parts.ts';
import { readContentVersion } from '../../src/storage/repositories/content-version.repository.ts';
import type { TestServer } from './test-server.ts';

/** A body held as several buffers, in one (the production code never copies them together). */
export const joinChunks = (body: ByteChunks): Buffer => Buffer.concat(body.chunks, body.byteLength);

/** The content version as the database has it now. */
export async function contentVersion(server: TestServer): Promise<number> {
  return (await readContentVersion(server.container.database.db)).version;
}

/**
 * GETs a listing in brotli, asking again while the store still answers in another encoding:
 * brotli is made in the background after the first request for it (gzip is served meanwhile).
 */
export async function brotliListing(
  server: TestServer,
  url: string,
  headers: Record<string, string> = {},
  withinMs = 5000,
): Promise<Buffer> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const response = await server.app.inject({ method: 'GET', url, headers: { ...headers, 'accept-encoding': 'br' } });
    assert.equal(response.statusCode, 200);
    if (response.headers['content-encoding'] === 'br') return zlib.brotliDecompressSync(response.rawPayload);
    if (Date.now() >= deadline) throw new Error(`${url} was still not served in brotli after ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
