import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { syncMirror } from '../../src/domain/mirror/sync-mirror.ts';
import type { MirrorDeps } from '../../src/domain/mirror/mirror-ports.ts';
import { isAppError } from '../../src/errors.ts';
import { TEST_ACTING } from '../helpers/acting.ts';
import { TEST_TLS_CA } from '../helpers/https-archive-server.ts';
import { startUpstreamStore } from '../helpers/mirror-upstream.ts';
import type { UpstreamStore } from '../helpers/mirror-upstream.ts';
import { startS3Server } from '../helpers/s3-server.ts';
import { startServeProcess } from '../helpers/serve-process.ts';
import type { S3Server } from '../helpers/s3-server.ts';
import { DIALECT, createTestDatabase } from '../helpers/test-database.ts';
import type { TestDatabase } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

describe(`mirror mode with the archives in S3-compatible storage, two nodes (${DIALECT})`, () => {
  let s3: S3Server;
  let source: UpstreamStore;
  let database: TestDatabase;
  let one: TestServer;
  let two: TestServer;
  let twoDataDir: string;
  let deps: MirrorDeps;

  before(async () => {
    s3 = await startS3Server('store/archives');
    source = await startUpstreamStore([
      ['news', '1.0.0'],
      ['notes', '2.0.0'],
    ]);
    database = await createTestDatabase();
    const env = { ...source.mirrorEnv, ...s3.env, APPSTORE_PUBLIC_URL: 'https://mirror.example.org' };
    one = await createTestServer({ database, env, downloadCa: [TEST_TLS_CA] });
    // The second node shares the database and the bucket, not the first one's data directory.
    twoDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'appstore-node-two-'));
    two = await createTestServer({
      database,
      env: { ...env, APPSTORE_DATA_DIR: twoDataDir },
      downloadCa: [TEST_TLS_CA],
    });
    assert.ok(one.container.mirror.deps !== null);
    deps = { ...one.container.mirror.deps, log: () => undefined };
  });
  after(async () => {
    await two?.app.close();
    await one?.close();
    await source?.close();
    await s3?.close();
    if (twoDataDir !== undefined) fs.rmSync(twoDataDir, { recursive: true, force: true });
  });

  test('one node syncs into the bucket; the other serves the release from it, with ETag, Range and HEAD', async () => {
    assert.match(
      one.container.mirror.storage.description,
      /^s3:\/\/archives\/store\/archives\/ at http:\/\/127\.0\.0\.1:\d+$/,
    );
    const report = await syncMirror(TEST_ACTING, deps);
    assert.equal(report.taken, 2, JSON.stringify(report));

    const keys = s3.keys();
    assert.equal(keys.length, 2, keys.join(', '));
    for (const key of keys) {
      assert.match(key, /^store\/archives\/[0-9a-f]{2}\/[0-9a-f]{64}\.tar\.gz$/);
      assert.equal(
        path.basename(key, '.tar.gz'),
        sha256(s3.object(key)),
        'each object is stored under its own SHA-256',
      );
    }
    assert.equal(
      fs.existsSync(path.join(database.dataDir, 'archives')),
      false,
      'nothing was written to the data directory',
    );

    const served = await two.app.inject({ url: '/api/v1/archives/news/1.0.0.tar.gz' });
    assert.equal(served.statusCode, 200, served.body);
    const digest = sha256(served.rawPayload);
    assert.equal(served.headers.etag, `"${digest}"`);
    assert.ok(
      keys.includes(`store/archives/${digest.slice(0, 2)}/${digest}.tar.gz`),
      'the second node served the object the first one stored',
    );
    assert.equal(fs.existsSync(path.join(twoDataDir, 'archives')), false);

    const range = await two.app.inject({ url: '/api/v1/archives/news/1.0.0.tar.gz', headers: { range: 'bytes=-100' } });
    assert.equal(range.statusCode, 206);
    assert.ok(range.rawPayload.equals(served.rawPayload.subarray(-100)));
    assert.equal(
      range.headers['content-range'],
      `bytes ${served.rawPayload.length - 100}-${served.rawPayload.length - 1}/${served.rawPayload.length}`,
    );
    const head = await two.app.inject({ method: 'HEAD', url: '/api/v1/archives/notes/2.0.0.tar.gz' });
    assert.equal(head.statusCode, 200);
    assert.equal(head.rawPayload.length, 0);
  });

  test('a node started as operators start it (bin/appstore.js serve, the bundle) serves the archive from the bucket', async () => {
    // Its data directory is the first node's (SQLite lives there), which holds no archive.
    const node = await startServeProcess({ ...database.env, ...s3.env });
    try {
      const answer = await fetch(`${node.url}/api/v1/archives/notes/2.0.0.tar.gz`);
      assert.equal(answer.status, 200, node.output());
      const bytes = Buffer.from(await answer.arrayBuffer());
      assert.equal(answer.headers.get('etag'), `"${sha256(bytes)}"`);
      assert.doesNotMatch(node.output(), /NodeVersionSupportWarning/);
      assert.equal(fs.existsSync(path.join(database.dataDir, 'archives')), false);
    } finally {
      await node.stop();
    }
  });

  test('with the object storage down, downloads answer 503 with the reason and a sync changes nothing', async () => {
    await source.publish('news', '1.1.0');
    const listed = (await one.app.inject({ url: '/api/v1/apps.json' })).body;
    await s3.stop();
    const down = await two.app.inject({ url: '/api/v1/archives/news/1.0.0.tar.gz' });
    assert.equal(down.statusCode, 503);
    assert.equal(down.json().code, 'archive_storage_unavailable');
    assert.match(
      down.json().detail,
      /The archive storage s3:\/\/archives\/store\/archives\/ .* could not read an archive/,
    );
    assert.doesNotMatch(down.body, /S3RVER/, 'no credentials in the answer');

    await assert.rejects(
      syncMirror(TEST_ACTING, deps),
      (error: unknown) => isAppError(error) && error.code === 'archive_storage_unavailable',
    );
    assert.equal((await one.app.inject({ url: '/api/v1/apps.json' })).body, listed, 'the previous state stays served');
  });
});
