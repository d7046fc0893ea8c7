import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { after, describe, test } from 'node:test';
import { openDescriptorsOf } from '../../test/helpers/open-files.ts';
import { FILE_BODY_CHUNK_BYTES, FileBody } from './file-body.ts';

const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'appstore-file-body-'));
after(() => fs.rmSync(directory, { recursive: true, force: true }));
const bytes = crypto.randomBytes(FILE_BODY_CHUNK_BYTES * 4 + 1234);
const file = path.join(directory, 'archive.tar.gz');
fs.writeFileSync(file, bytes);

/**
 * A stream destination that answers each write a little later and only then copies the chunk,
 * as a Transform that passes chunks on holds them after its callback.
 */
function slowDestination(): { destination: Writable; received: () => Buffer; backings: Set<ArrayBufferLike> } {
  const parts: Buffer[] = [];
  const backings = new Set<ArrayBufferLike>();
  const destination = new Writable({
    highWaterMark: 1,
    write(chunk: Buffer, _encoding, callback) {
      backings.add(chunk.buffer);
      setTimeout(() => {
        parts.push(Buffer.from(chunk));
        callback();
      }, 1);
    },
  });
  return { destination, received: () => Buffer.concat(parts), backings };
}

/** How many of this process's open files are the archive. */
const openFds = (): number => openDescriptorsOf(file);

/**
 * Sends `body` as a response from a local server and reads it; `slow`: the client reads a chunk
 * every few milliseconds, so the socket fills and the pump must wait for its writes;
 * `abortAfter`: the client goes away after that many bytes.
 */
async function download(body: FileBody, options: { slow?: boolean; abortAfter?: number } = {}): Promise<Buffer> {
  const server = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/gzip' });
    response.on('error', () => undefined);
    body.on('error', () => undefined);
    body.pipe(response);
    response.on('close', () => {
      if (!response.writableFinished) body.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    return await new Promise<Buffer>((resolve, reject) => {
      const request = http.get({ host: '127.0.0.1', port, agent: false }, (response) => {
        const parts: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          parts.push(chunk);
          size += chunk.length;
          if (options.abortAfter !== undefined && size >= options.abortAfter) {
            request.destroy();
            resolve(Buffer.concat(parts));
            return;
          }
          if (options.slow === true) {
            response.pause();
            setTimeout(() => response.resume(), 2);
          }
        });
        response.on('end', () => resolve(Buffer.concat(parts)));
        response.on('error', reject);
      });
      request.on('error', (error) => (options.abortAfter === undefined ? reject(error) : undefined));
    });
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

/** Counts the buffers of FILE_BODY_CHUNK_BYTES made while it is on. */
function countChunkAllocations(): { count: () => number; restore: () => void } {
  const original = Buffer.allocUnsafeSlow;
  let made = 0;
  Buffer.allocUnsafeSlow = (size: number) => {
    if (size === FILE_BODY_CHUNK_BYTES) made += 1;
    return original(size);
  };
  return { count: () => made, restore: () => (Buffer.allocUnsafeSlow = original) };
}

describe('FileBody', () => {
  test('piped into a response: every byte to a slow client, from two buffers used in turn', async () => {
    const allocated = countChunkAllocations();
    try {
      const received = await download(new FileBody(file), { slow: true });
      assert.ok(received.equals(bytes));
      assert.ok(allocated.count() <= 2, `${allocated.count()} buffers for five chunks`);
    } finally {
      allocated.restore();
    }
  });

  test('piped into a response: a range, from an odd start to an end inside the last chunk', async () => {
    const range = { start: 1, end: FILE_BODY_CHUNK_BYTES * 3 + 17 };
    const received = await download(new FileBody(file, range), { slow: true });
    assert.ok(received.equals(bytes.subarray(range.start, range.end + 1)));
  });

  test('piped into a response: a range past the end of the file ends where the file does', async () => {
    const received = await download(new FileBody(file, { start: bytes.length - 10, end: bytes.length + 100 }));
    assert.ok(received.equals(bytes.subarray(bytes.length - 10)));
  });

  test('piped into another stream (one that may pass its chunks on): a new buffer per chunk', async () => {
    const { destination, received, backings } = slowDestination();
    new FileBody(file).pipe(destination);
    await finished(destination);
    assert.ok(received().equals(bytes));
    assert.equal(backings.size, 5);
  });

  test('read as a stream: the same bytes, in new buffers', async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of new FileBody(file, { start: 5, end: bytes.length - 6 })) chunks.push(chunk as Buffer);
    assert.ok(Buffer.concat(chunks).equals(bytes.subarray(5, bytes.length - 5)));
    assert.equal(new Set(chunks.map((chunk) => chunk.buffer)).size, chunks.length);
  });

  test('a client gone halfway: the file is closed and the pump stops', async () => {
    const body = new FileBody(file);
    const closed = new Promise((resolve) => body.once('close', resolve));
    await download(body, { abortAfter: FILE_BODY_CHUNK_BYTES });
    await closed;
    assert.equal(openFds(), 0);
  });

  test('a file that cannot be opened fails the stream', async () => {
    const body = new FileBody(path.join(directory, 'missing.tar.gz'));
    const { destination } = slowDestination();
    body.pipe(destination);
    await assert.rejects(finished(body), { code: 'ENOENT' });
  });

  test('after the pump the file is closed', async () => {
    const body = new FileBody(file);
    const closed = new Promise((resolve) => body.once('close', resolve));
    await download(body);
    await closed;
    assert.equal(openFds(), 0);
  });
});
