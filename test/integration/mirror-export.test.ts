import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openExportFile } from '../../src/archives/export-file.ts';
import { readManifest } from '../../src/domain/mirror/export-format.ts';
import { importMirror } from '../../src/domain/mirror/import-mirror.ts';
import { syncMirror } from '../../src/domain/mirror/sync-mirror.ts';
import type { MirrorDeps } from '../../src/domain/mirror/mirror-ports.ts';
import { isAppError } from '../../src/errors.ts';
import { TEST_ACTING } from '../helpers/acting.ts';
import { TEST_TLS_CA } from '../helpers/https-archive-server.ts';
import { startUpstreamStore } from '../helpers/mirror-upstream.ts';
import type { UpstreamStore } from '../helpers/mirror-upstream.ts';
import { runAppstore } from '../helpers/run-cli.ts';
import { sparseTar } from '../helpers/sparse-tar.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';

const PUBLIC_URL = 'https://apps.intranet.example';
const IMPORT = { maxArchiveBytes: 20 * 1024 * 1024, allowOlder: false };
const LISTINGS = [
  '/api/v1/apps.json',
  '/api/v1/appapi_apps.json',
  '/api/v1/categories.json',
  '/api/v1/platforms.json',
  '/api/v1/discover.json',
  '/api/v1/platform/31.0.0/apps.json',
];

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');
const depsOf = (server: TestServer): MirrorDeps => {
  assert.ok(server.container.mirror.deps !== null);
  return { ...server.container.mirror.deps, log: () => undefined };
};

describe(`mirror export and import: an air-gapped store fed by file (${DIALECT})`, () => {
  let source: UpstreamStore;
  let connected: TestServer;
  let airGapped: TestServer;
  let directory: string;
  let env: Record<string, string>;

  const listings = async (server: TestServer): Promise<string[]> =>
    Promise.all(LISTINGS.map(async (url) => (await server.app.inject({ url })).body));
  const freshStore = () => createTestServer({ env, downloadCa: [TEST_TLS_CA] });
  /** What an operator runs: bin/appstore.js (the bundle) against the store's database. */
  const cli = (server: TestServer, args: string[]) => runAppstore(args, { ...server.database.env, ...env });

  before(async () => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'appstore-export-'));
    source = await startUpstreamStore([
      ['news', '1.0.0'],
      ['notes', '2.0.0'],
    ]);
    env = { ...source.mirrorEnv, APPSTORE_PUBLIC_URL: PUBLIC_URL, APPSTORE_MIRROR_INTERVAL_MINUTES: '0' };
    connected = await freshStore();
    airGapped = await freshStore();
    const report = await syncMirror(TEST_ACTING, depsOf(connected));
    assert.equal(report.taken, 2);
  });
  after(async () => {
    await airGapped?.close();
    await connected?.close();
    await source?.close();
    if (directory !== undefined) fs.rmSync(directory, { recursive: true, force: true });
  });

  test('export on the connected store, import with no network: the same listings byte for byte, every archive the same', async () => {
    const file = path.join(directory, 'first.tar');
    const exported = await cli(connected, ['mirror', 'export', file]);
    assert.equal(exported.code, 0, exported.stderr);
    assert.match(exported.stdout, /5 documents, 2 archives/);

    source.front.up = false;
    const seen = source.front.seen.length;
    try {
      const imported = await cli(airGapped, ['mirror', 'import', file]);
      assert.equal(imported.code, 0, imported.stderr + imported.stdout);
      assert.match(imported.stdout, /2 releases taken/);
    } finally {
      source.front.up = true;
    }
    assert.equal(source.front.seen.length, seen, 'the import reached nothing');

    assert.deepEqual(await listings(airGapped), await listings(connected));
    const apps = JSON.parse((await airGapped.app.inject({ url: '/api/v1/apps.json' })).body) as {
      id: string;
      releases: { version: string; download: string }[];
    }[];
    assert.equal(apps.length, 2);
    for (const release of apps.flatMap((a) => a.releases)) {
      const url = new URL(release.download).pathname;
      const ours = await airGapped.app.inject({ url });
      const theirs = await connected.app.inject({ url });
      assert.equal(ours.statusCode, 200, url);
      assert.equal(sha256(ours.rawPayload), sha256(theirs.rawPayload), url);
      assert.equal(ours.headers.etag, `"${sha256(ours.rawPayload)}"`);
    }
    const audit = await airGapped.container.database.db
      .selectFrom('audit_log')
      .select('event')
      .where('event', 'like', 'mirror.%')
      .execute();
    assert.deepEqual(
      audit.map((a) => a.event),
      ['mirror.imported'],
    );
  });

  test('an entry whose header declares more than its kind ever holds is refused from the header, never read (a sparse 3 GiB manifest.sha256; issue 49)', async () => {
    for (const [name, size, pattern] of [
      [
        'manifest.sha256',
        3 * 1024 ** 3,
        /manifest\.sha256 declares 3221225472 bytes, more than an export's ever holds \(1 KiB\)/,
      ],
      ['manifest.sha256', 1025, /\(1 KiB\)/],
      ['manifest.json', 65 * 1024 * 1024, /manifest\.json declares 68157440 bytes.*\(64 MiB\)/],
      ['documents/apps.json', 257 * 1024 * 1024, /\(256 MiB\)/],
    ] as const) {
      const file = path.join(directory, 'sparse.tar');
      sparseTar(file, name, size);
      await assert.rejects(
        openExportFile(file),
        (error: unknown) => isAppError(error) && error.code === 'invalid_mirror_file' && pattern.test(error.detail),
        name,
      );
    }
    sparseTar(path.join(directory, 'sparse.tar'), 'manifest.sha256', 1024 ** 3);
    const store = await freshStore();
    try {
      const command = await cli(store, ['mirror', 'import', path.join(directory, 'sparse.tar')]);
      assert.equal(command.code, 1, command.stderr);
      assert.match(
        command.stderr,
        /sparse\.tar cannot be used as an export file \(manifest\.sha256 declares 1073741824 bytes, more than an export's ever holds \(1 KiB\)\): nothing was changed/,
      );
    } finally {
      await store.close();
    }
  });

  test('a damaged or cut-short file is refused whole, naming the problem; the store is unchanged', async () => {
    const file = path.join(directory, 'first.tar');
    const bytes = fs.readFileSync(file);
    const source_ = await openExportFile(file);
    const manifest = await readManifest(source_);
    const archiveName = `archives/${manifest.archives[0]?.sha256.slice(0, 2)}/${manifest.archives[0]?.sha256}.tar.gz`;
    const at = bytes.indexOf(Buffer.from(archiveName)) + 512 + 100;

    const damaged = Buffer.from(bytes);
    damaged[at] = (damaged[at] ?? 0) ^ 0xff;
    const manifestAt = bytes.indexOf(Buffer.from('"upstream"'));
    const badManifest = Buffer.from(bytes);
    badManifest[manifestAt + 1] = 'U'.charCodeAt(0);
    const cases: [string, Buffer, RegExp][] = [
      ['damaged.tar', damaged, /does not match its SHA-256 in the manifest: the file is damaged/],
      ['manifest.tar', badManifest, /its manifest does not match the manifest's recorded SHA-256/],
      ['short.tar', bytes.subarray(0, Math.floor(bytes.length / 2)), /cannot be used as an export file \(.*cut short/],
      ['foreign.tar', Buffer.alloc(4096), /has no manifest/],
    ];
    const store = await freshStore();
    try {
      const before = await listings(store);
      for (const [name, content, reason] of cases) {
        const target = path.join(directory, name);
        fs.writeFileSync(target, content);
        await assert.rejects(
          (async () => importMirror(TEST_ACTING, depsOf(store), await openExportFile(target), IMPORT))(),
          (error: unknown) =>
            isAppError(error) &&
            error.code === 'invalid_mirror_file' &&
            reason.test(error.detail) &&
            /nothing was changed/.test(error.detail),
          name,
        );
      }
      assert.deepEqual(await listings(store), before);
      assert.deepEqual(
        fs.readdirSync(path.join(store.database.dataDir)).filter((entry) => entry === 'archives'),
        [],
        'not one archive was stored',
      );
      const command = await cli(store, ['mirror', 'import', path.join(directory, 'damaged.tar')]);
      assert.equal(command.code, 1);
      assert.match(command.stderr, /damaged\.tar cannot be imported \(archives\/.* does not match its SHA-256/);
    } finally {
      await store.close();
    }
  });

  test('an incremental export carries only what is new, and needs the earlier one imported first', async () => {
    await source.publish('news', '1.1.0');
    assert.equal((await syncMirror(TEST_ACTING, depsOf(connected))).taken, 1);
    const file = path.join(directory, 'second.tar');
    const exported = await cli(connected, ['mirror', 'export', file, '--since', path.join(directory, 'first.tar')]);
    assert.equal(exported.code, 0, exported.stderr);
    assert.match(exported.stdout, /incremental against [0-9a-f]{16}/);
    assert.match(exported.stdout, /1 archive .*, 1 left out/);
    const second = await openExportFile(file);
    const manifest = await readManifest(second);
    assert.deepEqual(
      manifest.archives.map((a) => a.included).sort(),
      [false, true],
      'news 1.1.0 is in the file; notes 2.0.0 is not (news 1.0.0 is no longer listed)',
    );
    assert.equal([...second.entries.keys()].filter((name) => name.startsWith('archives/')).length, 1);

    const store = await freshStore();
    try {
      await assert.rejects(
        (async () => importMirror(TEST_ACTING, depsOf(store), await openExportFile(file), IMPORT))(),
        (error: unknown) =>
          isAppError(error) &&
          error.code === 'invalid_mirror_file' &&
          /it is incremental: an archive it needs is in the export [0-9a-f]{16} of .*, which this store has not imported; import that one first/.test(
            error.detail,
          ),
      );
    } finally {
      await store.close();
    }
    const report = await importMirror(TEST_ACTING, depsOf(airGapped), await openExportFile(file), IMPORT);
    assert.equal(report.taken, 1);
    assert.equal(report.unchanged, 1);
    assert.deepEqual(await listings(airGapped), await listings(connected));

    // The first file again would take the store back: refused unless asked for.
    const older = await cli(airGapped, ['mirror', 'import', path.join(directory, 'first.tar')]);
    assert.equal(older.code, 1);
    assert.match(
      older.stderr,
      /it was made on .*, before the export imported last \([0-9a-f]{16}, made on .*\); importing it would take the store back to what the connected store had then\. To bring the store up to date, import a file exported after .* \(the newest one\); to go back on purpose, pass --older/,
    );
    assert.deepEqual(await listings(airGapped), await listings(connected));
  });

  test('an import takes no archive larger than APPSTORE_MAX_ARCHIVE_MIB, as a sync would not', async () => {
    const store = await freshStore();
    try {
      const report = await importMirror(
        TEST_ACTING,
        depsOf(store),
        await openExportFile(path.join(directory, 'first.tar')),
        { maxArchiveBytes: 100, allowOlder: false },
      );
      assert.equal(report.taken, 0);
      assert.equal(report.refused.length, 2);
      assert.ok(
        report.refused.every((r) => /more than APPSTORE_MAX_ARCHIVE_MIB allows \(100\)/.test(r.reason)),
        JSON.stringify(report.refused),
      );
    } finally {
      await store.close();
    }
  });

  test('export refuses to replace a file, to write where it cannot, and to carry a damaged stored archive', async () => {
    const existing = await cli(connected, ['mirror', 'export', path.join(directory, 'first.tar')]);
    assert.equal(existing.code, 1);
    assert.match(existing.stderr, /first\.tar: a file of that name exists/);
    const nowhere = await cli(connected, ['mirror', 'export', path.join(directory, 'no', 'such', 'x.tar')]);
    assert.equal(nowhere.code, 1);
    assert.match(nowhere.stderr, /its directory does not exist\. Nothing was written/);
    const since = await cli(connected, [
      'mirror',
      'export',
      path.join(directory, 'third.tar'),
      '--since',
      path.join(directory, 'damaged-none.tar'),
    ]);
    assert.equal(since.code, 1);
    assert.deepEqual(
      fs.readdirSync(directory).filter((name) => name.startsWith('third.tar')),
      [],
      'no partial file left',
    );

    const { sha256: stored } = (await connected.container.mirror.deps?.store.state())?.releases.find(
      (r) => r.status === 'listed',
    ) ?? { sha256: '' };
    const file = path.join(connected.database.dataDir, 'archives', stored.slice(0, 2), `${stored}.tar.gz`);
    const original = fs.readFileSync(file);
    const damaged = Buffer.from(original);
    damaged[40] = (damaged[40] ?? 0) ^ 1;
    fs.writeFileSync(file, damaged);
    try {
      const refused = await cli(connected, ['mirror', 'export', path.join(directory, 'third.tar')]);
      assert.equal(refused.code, 1);
      assert.match(
        refused.stderr,
        new RegExp(`The stored archive ${stored} .* is damaged: its bytes no longer match their SHA-256`),
      );
      assert.deepEqual(
        fs.readdirSync(directory).filter((name) => name.startsWith('third.tar')),
        [],
        'no file, no partial file',
      );
    } finally {
      fs.writeFileSync(file, original);
    }
  });
});

describe(`mirror export: releases kept after they left the upstream travel with the file (${DIALECT})`, () => {
  let source: UpstreamStore;
  let connected: TestServer;
  let airGapped: TestServer;
  let directory: string;
  let env: Record<string, string>;

  before(async () => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'appstore-export-kept-'));
    source = await startUpstreamStore([
      ['news', '1.0.0'],
      ['news', '1.1.0'],
      ['notes', '2.0.0'],
    ]);
    env = { ...source.mirrorEnv, APPSTORE_PUBLIC_URL: PUBLIC_URL, APPSTORE_MIRROR_INTERVAL_MINUTES: '0' };
    connected = await createTestServer({ env, downloadCa: [TEST_TLS_CA] });
    airGapped = await createTestServer({ env, downloadCa: [TEST_TLS_CA] });
  });
  after(async () => {
    await airGapped?.close();
    await connected?.close();
    await source?.close();
    if (directory !== undefined) fs.rmSync(directory, { recursive: true, force: true });
  });

  test('a full export imported into a new store lists every release the connected store lists, byte for byte (issue 49)', async () => {
    await syncMirror(TEST_ACTING, depsOf(connected));
    // news 1.1.0 leaves the upstream: the connected store keeps it (and takes 1.0.0, now the newest there).
    const deleted = await source.server.app.inject({
      method: 'DELETE',
      url: '/api/v1/apps/news/releases/1.1.0',
      headers: { authorization: `Token ${source.token}` },
    });
    assert.equal(deleted.statusCode, 204);
    await syncMirror(TEST_ACTING, depsOf(connected));
    const listed = (
      JSON.parse((await connected.app.inject({ url: '/api/v1/apps.json' })).body) as {
        id: string;
        releases: { version: string }[];
      }[]
    ).find((a) => a.id === 'news');
    assert.deepEqual(listed?.releases.map((r) => r.version).sort(), ['1.0.0', '1.1.0']);

    const file = path.join(directory, 'full.tar');
    const exported = await runAppstore(['mirror', 'export', file], { ...connected.database.env, ...env });
    assert.equal(exported.code, 0, exported.stderr);
    assert.match(exported.stdout, /6 documents, 3 archives/);
    const report = await importMirror(TEST_ACTING, depsOf(airGapped), await openExportFile(file), IMPORT);
    assert.equal(report.taken, 3, JSON.stringify(report));
    const LISTED = ['/api/v1/apps.json', '/api/v1/platform/31.0.0/apps.json', '/api/v1/categories.json'];
    for (const url of LISTED)
      assert.equal((await airGapped.app.inject({ url })).body, (await connected.app.inject({ url })).body, url);

    // Exported again from the air-gapped store, the kept release travels on.
    const again = path.join(directory, 'again.tar');
    const second = await runAppstore(['mirror', 'export', again], { ...airGapped.database.env, ...env });
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, /6 documents, 3 archives/);
  });
});
