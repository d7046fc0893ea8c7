import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { after, describe, test } from 'node:test';
import { FILE_BODY_CHUNK_BYTES, FileBody } from './file-body.ts';

const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'appstore-file-body-'));
after(() => fs.rmSync(directory, { recursive: true, force: true }));
const bytes = crypto.randomBytes(FILE_BODY_CHUNK_BYTES * 4 + 1234);
const file = path.join(directory, 'archive.tar.gz');
fs.writeFileSync(file, bytes);

/**
 * A destination that answers each write a little later and only then copies the chunk: a body
 * that read into a buffer still being written would show up as wrong bytes.
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

const openFds = (): number => fs.readdirSync('/proc/self/fd').length;

describe('FileBody', () => {
  test('piped: every byte, in two buffers reused once each write is done', async () => {
    const { destination, received, backings } = slowDestination();
    const body = new FileBody(file);
    body.pipe(destination);
    await finished(destination);
    await finished(body);
    assert.ok(received().equals(bytes));
    assert.equal(backings.size, 2, 'two buffers for five chunks');
  });

  test('piped: a range, from an odd start to an end inside the last chunk', async () => {
    const { destination, received } = slowDestination();
    const range = { start: 1, end: FILE_BODY_CHUNK_BYTES * 3 + 17 };
    new FileBody(file, range).pipe(destination);
    await finished(destination);
    assert.ok(received().equals(bytes.subarray(range.start, range.end + 1)));
  });

  test('a range past the end of the file ends where the file does', async () => {
    const { destination, received } = slowDestination();
    new FileBody(file, { start: bytes.length - 10, end: bytes.length + 100 }).pipe(destination);
    await finished(destination);
    assert.ok(received().equals(bytes.subarray(bytes.length - 10)));
  });

  test('read as a stream: the same bytes, in new buffers', async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of new FileBody(file, { start: 5, end: bytes.length - 6 })) chunks.push(chunk as Buffer);
    assert.ok(Buffer.concat(chunks).equals(bytes.subarray(5, bytes.length - 5)));
    assert.equal(new Set(chunks.map((chunk) => chunk.buffer)).size, chunks.length);
  });

  test('destroyed halfway (the client went away): the file is closed and no more is written', async () => {
    const before = openFds();
    let writes = 0;
    const body = new FileBody(file);
    const destination = new Writable({
      write(_chunk, _encoding, callback) {
        writes += 1;
        if (writes === 2) body.destroy();
        setTimeout(callback, 1);
      },
    });
    body.pipe(destination);
    await new Promise((resolve) => body.once('close', resolve));
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.ok(writes <= 3, `wrote ${writes} chunks after being destroyed`);
    assert.equal(openFds(), before);
  });

  test('a file that cannot be opened fails the stream', async () => {
    const body = new FileBody(path.join(directory, 'missing.tar.gz'));
    const { destination } = slowDestination();
    body.pipe(destination);
    await assert.rejects(finished(body), { code: 'ENOENT' });
  });

  test('after the pump the file is closed', async () => {
    const before = openFds();
    const { destination } = slowDestination();
    const body = new FileBody(file);
    body.pipe(destination);
    await finished(destination);
    await new Promise((resolve) => body.once('close', resolve));
    assert.equal(openFds(), before);
  });
});
