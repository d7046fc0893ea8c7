import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AppError } from '../../../src/errors.ts';
import { TEST_TLS_CA, startArchiveServer } from '../../helpers/https-archive-server.ts';
import type { ArchiveServer } from '../../helpers/https-archive-server.ts';
import { createDownloader } from '../../../src/downloads/archive-downloader.ts';
import type { DownloadOptions } from '../../../src/downloads/archive-downloader.ts';
import { trustContext } from '../../../src/downloads/trust-context.ts';

const BASE: DownloadOptions = {
  timeoutMs: 5000,
  maxBytes: 1024 * 1024,
  maxRedirects: 10,
  allowPrivate: true,
  trust: trustContext([TEST_TLS_CA]),
};

async function refused(promise: Promise<unknown>, message: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof AppError, String(error));
    assert.equal(error.code, 'invalid_download');
    assert.match(error.detail, message);
    return true;
  });
}

describe('the archive downloader', () => {
  let server: ArchiveServer;
  const body = Buffer.from('a small archive body');
  before(async () => {
    server = await startArchiveServer();
    server.serve('/app.tar.gz', body);
    server.handle('/missing-length', (_q, r) => {
      r.writeHead(200, { 'content-type': 'application/gzip' });
      r.write(Buffer.alloc(700 * 1024));
      r.end(Buffer.alloc(700 * 1024));
    });
    server.handle('/big-with-length', (_q, r) =>
      r.writeHead(200, { 'content-length': 2 * 1024 * 1024 }).end(Buffer.alloc(2 * 1024 * 1024)),
    );
    server.handle('/slow', (_q, r) => {
      r.writeHead(200);
      r.write('x');
      setTimeout(() => r.end('y'), 3000).unref();
    });
    for (let i = 0; i < 12; i++)
      server.handle(`/hop/${i}`, (_q, r) =>
        r.writeHead(302, { location: i === 11 ? '/app.tar.gz' : `/hop/${i + 1}` }).end(),
      );
    server.handle('/to-http', (_q, r) =>
      r.writeHead(301, { location: `http://localhost:${server.port}/app.tar.gz` }).end(),
    );
    server.handle('/relative', (_q, r) => r.writeHead(307, { location: 'app.tar.gz' }).end());
  });
  after(() => server.close());

  test('fetches over HTTPS with the test CA', async () => {
    const result = await createDownloader(BASE)(`${server.origin}/app.tar.gz`);
    assert.deepEqual(result.bytes, body);
  });

  test('HTTP is refused before any connection', async () => {
    await refused(
      createDownloader(BASE)(`http://localhost:${server.port}/app.tar.gz`),
      /^download must be an https:\/\/ URL$/,
    );
    await refused(createDownloader(BASE)('not a url'), /https:\/\/ URL/);
  });

  test('redirects: followed by hand, relative ones too; to HTTP refused; more than the limit refused', async () => {
    assert.deepEqual((await createDownloader(BASE)(`${server.origin}/relative`)).bytes, body);
    await refused(
      createDownloader(BASE)(`${server.origin}/to-http`),
      /^redirect to a non-HTTPS URL refused \(from localhost\)$/,
    );
    await refused(createDownloader(BASE)(`${server.origin}/hop/0`), /more than 10 redirects/);
    assert.deepEqual((await createDownloader(BASE)(`${server.origin}/hop/2`)).bytes, body, '10 redirects are fine');
  });

  test('HTTP errors name the status and the host', async () => {
    await refused(
      createDownloader(BASE)(`${server.origin}/nothing-here`),
      /^download failed: HTTP 404 from localhost$/,
    );
  });

  test('too large: with Content-Length, and without it (counted while streaming)', async () => {
    await refused(createDownloader(BASE)(`${server.origin}/big-with-length`), /^archive is larger than 1 MiB$/);
    await refused(createDownloader(BASE)(`${server.origin}/missing-length`), /^archive is larger than 1 MiB$/);
  });

  test('a slow server times out', async () => {
    await refused(
      createDownloader({ ...BASE, timeoutMs: 300 })(`${server.origin}/slow`),
      /^download timed out after 0\.3 s$/,
    );
  });

  test('private addresses: refused by name and by literal address, allowed by the switch', async () => {
    const guarded = createDownloader({ ...BASE, allowPrivate: false });
    await refused(
      guarded(`${server.origin}/app.tar.gz`),
      /^download refused: localhost resolves to a private, loopback or reserved address$/,
    );
    await refused(guarded(`https://127.0.0.1:${server.port}/app.tar.gz`), /127\.0\.0\.1 resolves to a private/);
    await refused(guarded(`https://[::1]:${server.port}/app.tar.gz`), /private/);
    assert.deepEqual((await createDownloader(BASE)(`https://127.0.0.1:${server.port}/app.tar.gz`)).bytes, body);
  });

  test('an untrusted TLS certificate', async () => {
    const untrusted = await startArchiveServer({ untrusted: true });
    untrusted.serve('/app.tar.gz', body);
    await refused(
      createDownloader(BASE)(`${untrusted.origin}/app.tar.gz`),
      /^download failed: the TLS certificate of localhost is not trusted$/,
    );
    await untrusted.close();
  });
});
