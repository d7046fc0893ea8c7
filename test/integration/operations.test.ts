import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { loadConfig } from '../../src/config/config.ts';
import { runHousekeeping } from '../../src/domain/housekeeping.ts';
import { formatTimestamp } from '../../src/domain/timestamps.ts';
import { startServer } from '../../src/server.ts';
import { importCategories } from '../../src/domain/catalog/import-catalog.ts';
import { createUser } from '../helpers/accounts.ts';
import { TEST_ACTING } from '../helpers/acting.ts';
import { certFile, readCert } from '../helpers/certificate-fixtures.ts';
import { publishDirectly } from '../helpers/listing-data.ts';
import { runCommand } from '../helpers/run-cli.ts';
import { DIALECT, createTestDatabase } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';

const TOKEN = 'metrics-token-for-the-tests';

/** The samples of a Prometheus text exposition: `name{labels}` → value; malformed lines fail the test. */
function parseMetrics(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match =
      /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*",?)*\})?) (-?[0-9.e+-]+|[Nn]a[Nn]|\+Inf|-Inf)$/.exec(
        line,
      );
    assert.ok(match !== null, `not a Prometheus sample line: ${line}`);
    samples.set(match[1] ?? '', Number(match[2]));
  }
  return samples;
}

describe(`metrics (${DIALECT})`, () => {
  test('GET /metrics with the token: Prometheus text whose counters move with requests; 401 without it', async () => {
    const server = await createTestServer({
      env: { APPSTORE_METRICS_TOKEN: TOKEN, APPSTORE_CA_CERT: certFile('chain.pem') },
    });
    try {
      const scrape = async () => {
        const response = await server.app.inject({
          method: 'GET',
          url: '/metrics',
          headers: { authorization: `Bearer ${TOKEN}` },
        });
        assert.equal(response.statusCode, 200);
        assert.match(String(response.headers['content-type']), /^text\/plain; version=0\.0\.4/);
        return parseMetrics(response.body);
      };
      const refused = await server.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: 'Bearer wrong' },
      });
      assert.equal(refused.statusCode, 401);
      assert.equal(refused.json().code, 'not_authenticated');

      const key = 'appstore_http_requests_total{route="/api/v1/categories.json",method="GET",status="200"}';
      const before = (await scrape()).get(key) ?? 0;
      for (let i = 0; i < 3; i++)
        assert.equal((await server.app.inject({ method: 'GET', url: '/api/v1/categories.json' })).statusCode, 200);
      await server.app.inject({ method: 'GET', url: '/api/v1/apps.json' });
      const user = await createUser(server.container, 'mo', 'a password for metrics');
      const register = await server.app.inject({
        method: 'POST',
        url: '/api/v1/apps',
        headers: {
          authorization: `Basic ${Buffer.from(`${user.username}:a password for metrics`).toString('base64')}`,
        },
        payload: { certificate: readCert('news.crt'), signature: 'AAAA' },
      });
      assert.equal(register.json().code, 'invalid_signature');
      const after = await scrape();
      assert.equal(after.get(key), before + 3, 'three more requests counted');
      assert.ok(
        (after.get('appstore_http_request_duration_seconds_count{route="/api/v1/categories.json",method="GET"}') ??
          0) >= 3,
      );
      assert.equal(after.get('appstore_uploads_total{kind="register",outcome="refused",code="invalid_signature"}'), 1);
      assert.ok(
        (after.get('appstore_listing_render_duration_seconds_count{listing="categories"}') ?? 0) >= 1,
        'a render of categories.json',
      );
      assert.ok(
        (after.get('appstore_listing_render_duration_seconds_count{listing="apps-body"}') ?? 0) >= 1,
        'an assembled apps.json',
      );
      assert.ok((after.get('appstore_listing_cache_bytes') ?? 0) > 0);
      // SQLite checks other processes' commits when it reads the version; PostgreSQL is told instead.
      if (DIALECT === 'sqlite')
        assert.ok((after.get('appstore_commit_probes_total') ?? 0) > 0, 'the commit probe was asked');
      else assert.equal(after.get('appstore_commit_probes_total'), 0);
      assert.ok((after.get('appstore_process_resident_memory_bytes') ?? 0) > 0, 'the process metrics');
      if (DIALECT === 'postgres') assert.equal(after.get('appstore_db_pool_connections{state="size"}'), 4);
    } finally {
      await server.close();
    }
  });

  test('off unless configured: 404 without a token; on a port of its own with APPSTORE_METRICS_PORT', async () => {
    const plain = await createTestServer();
    assert.equal((await plain.app.inject({ method: 'GET', url: '/metrics' })).statusCode, 404);
    await plain.close();

    const database = await createTestDatabase();
    const config = loadConfig({
      ...database.env,
      APPSTORE_PORT: '0',
      APPSTORE_METRICS_PORT: '0',
      APPSTORE_LOG_LEVEL: 'silent',
      APPSTORE_CA_CERT: certFile('chain.pem'),
    });
    const server = await startServer(config);
    try {
      assert.ok(server.metricsPort !== null);
      // A poll answered 304 before routing (the fast path) is counted too.
      const { port } = server.app.server.address() as AddressInfo;
      const listing = await fetch(`http://127.0.0.1:${port}/api/v1/categories.json`);
      const etag = listing.headers.get('etag') ?? '';
      await listing.arrayBuffer();
      for (let i = 0; i < 2; i++)
        assert.equal(
          (
            await fetch(`http://127.0.0.1:${port}/api/v1/categories.json?x=${i}`, {
              headers: { 'if-none-match': etag },
            })
          ).status,
          304,
        );
      const scraped = await fetch(`http://127.0.0.1:${server.metricsPort}/metrics`);
      assert.equal(scraped.status, 200);
      const samples = parseMetrics(await scraped.text());
      assert.ok(samples.size > 10);
      assert.equal(
        samples.get('appstore_http_requests_total{route="/api/v1/categories.json",method="GET",status="304"}'),
        2,
        'the two 304s, by path without the query',
      );
      assert.equal(
        (await fetch(`http://127.0.0.1:${server.metricsPort}/api/v1/apps.json`)).status,
        404,
        'nothing else there',
      );
      assert.equal(
        (await server.app.inject({ method: 'GET', url: '/metrics' })).statusCode,
        404,
        'not on the main port',
      );
    } finally {
      await server.stop();
      await database.dispose();
    }
  });

  test('settings: APPSTORE_DATABASE_POOL_SIZE and the metrics variables are checked', () => {
    assert.equal(loadConfig({ APPSTORE_DATABASE_POOL_SIZE: '25' }).databasePoolSize, 25);
    assert.equal(loadConfig({}).databasePoolSize, 10);
    assert.throws(
      () =>
        loadConfig({
          APPSTORE_DATABASE_POOL_SIZE: 'many',
          APPSTORE_METRICS_TOKEN: 'short',
          APPSTORE_METRICS_PORT: '8000',
        }),
      (error: Error) => {
        assert.match(error.message, /APPSTORE_DATABASE_POOL_SIZE/);
        assert.match(error.message, /APPSTORE_METRICS_TOKEN: use at least 16 characters/);
        assert.match(error.message, /APPSTORE_METRICS_PORT: must differ from APPSTORE_PORT/);
        return true;
      },
    );
  });
});

describe(`housekeeping (${DIALECT})`, () => {
  test('two nodes: one prunes expired sessions, links, old rate-limit hits and the listing parts of formats no node uses; the other waits; then not again before the interval', async () => {
    const database = await createTestDatabase();
    const one = await createTestServer({ database });
    const two = await createTestServer({ database });
    try {
      const { db } = one.container.database;
      const user = await createUser(one.container, 'kay', null);
      const now = new Date();
      const ago = (ms: number) => formatTimestamp(new Date(now.getTime() - ms));
      const ahead = (ms: number) => formatTimestamp(new Date(now.getTime() + ms));
      await db
        .insertInto('sessions')
        .values([
          {
            id_hash: 'expired',
            user_id: user.id,
            csrf_token_hash: 'x',
            created_at: ago(2 * 86_400_000),
            expires_at: ago(1000),
          },
          {
            id_hash: 'current',
            user_id: user.id,
            csrf_token_hash: 'x',
            created_at: ago(1000),
            expires_at: ahead(86_400_000),
          },
        ])
        .execute();
      await db
        .insertInto('account_links')
        .values({
          secret_hash: 'old',
          user_id: user.id,
          purpose: 'verify-email',
          email: null,
          created_at: ago(3 * 86_400_000),
          expires_at: ago(86_400_000),
        })
        .execute();
      await db
        .insertInto('rate_limit_hits')
        .values([
          { bucket: 'auth-failed-address', subject: '192.0.2.1', hit_at: ago(40 * 86_400_000) },
          { bucket: 'auth-failed-address', subject: '192.0.2.2', hit_at: ago(60_000) },
        ])
        .execute();

      // Saved listing parts of three other versions: one no node has marked for two days (an
      // upgrade that finished), one a node marked an hour ago (a rolling upgrade), one from before
      // formats were marked (no checksum).
      await db
        .insertInto('apps')
        .values({
          id: 'kept',
          owner_id: user.id,
          certificate: 'c',
          is_featured: false,
          is_enterprise_only: false,
          transfer_unlocked: false,
          created_at: ago(0),
          updated_at: ago(0),
        })
        .execute();
      const part = (format: string, checksum: string) => ({
        app_id: 'kept',
        format,
        listing_version: 1,
        recent_ratings: 0,
        enterprise_only: false,
        head_length: 1,
        releases: '[]',
        crc: 0,
        text_length: 1,
        deflated: Buffer.from('x'),
        checksum,
      });
      await db
        .insertInto('listing_parts')
        .values([part('finished upgrade', 'c1'), part('rolling upgrade', 'c2'), part('before 0.3', '')])
        .execute();
      await db
        .insertInto('listing_part_formats')
        .values([
          { format: 'finished upgrade', seen_at: ago(2 * 86_400_000) },
          { format: 'rolling upgrade', seen_at: ago(3_600_000) },
        ])
        .execute();

      const [first, second] = await Promise.all([
        runHousekeeping(one.container.housekeeping),
        runHousekeeping(two.container.housekeeping),
      ]);
      const reports = [first, second].filter((report) => report !== null);
      assert.equal(reports.length, 1, 'exactly one node ran it');
      assert.deepEqual(reports[0], {
        sessions: 1,
        links: 1,
        loginFlows: 0,
        rateLimitHits: 1,
        listingParts: 2,
        publishJobs: 0,
        tokens: 0,
      });
      assert.deepEqual(
        (await db.selectFrom('listing_parts').select('format').execute()).map((row) => row.format),
        ['rolling upgrade'],
      );
      const marked = (await db.selectFrom('listing_part_formats').select('format').execute())
        .map((row) => row.format)
        .sort();
      assert.deepEqual(
        marked,
        [one.container.housekeeping.partFormat, 'rolling upgrade'].sort(),
        'each node marks its own format; the finished one is gone',
      );
      assert.deepEqual(
        (await db.selectFrom('sessions').select('id_hash').execute()).map((row) => row.id_hash),
        ['current'],
      );
      assert.deepEqual(
        (await db.selectFrom('rate_limit_hits').select('subject').execute()).map((row) => row.subject),
        ['192.0.2.2'],
      );
      assert.equal(await runHousekeeping(two.container.housekeeping), null, 'not due again within the interval');
    } finally {
      await two.app.close();
      await one.close();
    }
  });
});

describe(`appstore backup (${DIALECT})`, () => {
  test(
    DIALECT === 'sqlite'
      ? 'a copy taken while publishes run opens and passes the integrity check'
      : 'PostgreSQL: refused, naming pg_dump',
    async () => {
      const server = await createTestServer();
      try {
        const file = path.join(server.database.dataDir, 'backup.sqlite');
        if (DIALECT === 'postgres') {
          const refused = await runCommand(['backup', file], server.database.env);
          assert.equal(refused.code, 1);
          assert.match(refused.stderr, /pg_dump --format=custom/);
          return;
        }
        const owner = await createUser(server.container, 'lee', null);
        await importCategories(
          [{ id: 'tools', translations: { en: { name: 'Tools', description: '' } } }],
          TEST_ACTING,
          server.container.catalog,
        );
        let publishing = true;
        let published = 0;
        const writer = (async () => {
          while (publishing && published < 2000) {
            await publishDirectly(
              server.container,
              {
                appId: `app${published % 20}`,
                version: `1.0.${published}`,
                spec: '>=30',
                words: 'x'.repeat(2000),
                certificate: readCert('news.crt'),
                ownerId: owner.id,
              },
              new Date(),
            );
            published += 1;
          }
        })();
        for (let waited = 0; published < 20 && waited < 400; waited++)
          await Promise.race([writer, new Promise((resolve) => setTimeout(resolve, 5))]);
        const result = await runCommand(['backup', file], server.database.env);
        const duringBackup = published;
        publishing = false;
        await writer;
        assert.equal(result.code, 0, result.stderr);
        assert.match(result.stdout, /^backed up \d+ pages to .*backup\.sqlite \(integrity checked\)/);
        assert.equal(fs.statSync(file).mode & 0o777, 0o600, 'readable by its owner only, whatever the umask');
        assert.ok(duringBackup >= 20);
        const copy = new BetterSqlite3(file, { readonly: true });
        try {
          assert.equal(copy.pragma('integrity_check', { simple: true }), 'ok');
          const releases = copy.prepare('select count(*) as n from releases').get() as { n: number };
          assert.ok(releases.n >= 1, 'the copy holds the published releases');
        } finally {
          copy.close();
        }
        const again = await runCommand(['backup', file], server.database.env);
        assert.equal(again.code, 1);
        assert.match(again.stderr, /exists: give a new file name/);
        assert.deepEqual(
          fs.readdirSync(server.database.dataDir).filter((name) => name.includes('partial')),
          [],
          'no partial copy left',
        );
      } finally {
        await server.close();
      }
    },
  );
});
