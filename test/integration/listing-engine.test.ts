import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import type { AddressInfo } from 'node:net';
import { recentWindowStart } from '../../src/domain/listings/rating-aggregate.ts';
import { loadListedApps } from '../../src/storage/repositories/listing.repository.ts';
import { createUser } from '../helpers/accounts.ts';
import { TestClock } from '../helpers/clock.ts';
import { renderFromScratch } from '../helpers/listed-app.ts';
import { publishDirectly, registerDirectly } from '../helpers/listing-data.ts';
import { eventually } from '../helpers/eventually.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import { contentVersion } from '../helpers/listing-bytes.ts';
import { partChecksum } from '../../src/domain/listings/app-part.ts';
import type { SavedPart } from '../../src/domain/listings/app-part.ts';
import { loadSavedParts } from '../../src/storage/repositories/listing-part.repository.ts';
import type { TestServer } from '../helpers/test-server.ts';
import { testAudit } from '../helpers/acting.ts';
import { LONG_RUNS } from '../helpers/long-runs.ts';

/** The size of a listing compressed with brotli as the engine does (quality 5). */
function brotliSize(text: string): number {
  const params = {
    [zlib.constants.BROTLI_PARAM_QUALITY]: 5,
    [zlib.constants.BROTLI_PARAM_SIZE_HINT]: Buffer.byteLength(text),
  };
  return zlib.brotliCompressSync(text, { params }).byteLength;
}

/** A small deterministic generator, so a failing sequence can be replayed from its seed. */
function random(seed: number): { int(n: number): number; pick<T>(items: readonly T[]): T } {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
  return {
    int: (n) => Math.floor(next() * n),
    pick: (items) => items[Math.floor(next() * items.length)] as (typeof items)[number],
  };
}

const SPECS = ['*', '>=28.0.0 <30.0.0', '>=29.0.0 <32.0.0', '>=30.0.0', '>=31.0.0 <33.0.0'];
const VARIANTS = [
  { url: '/api/v1/apps.json?include_enterprise=true', includeEnterprise: true },
  { url: '/api/v1/apps.json', includeEnterprise: false },
  { url: '/api/v1/platform/30.0.0/apps.json?include_enterprise=1', includeEnterprise: true, platform: '30.0.0' },
  { url: '/api/v1/platform/28.0.4/apps.json', includeEnterprise: false, platform: '28.0.4' },
] as const;

describe(`the listing engine against a whole-catalogue render (${DIALECT})`, () => {
  let server: TestServer;
  let other: TestServer;
  const clock = new TestClock('2026-06-01T12:00:00.000Z');
  const users: number[] = [];
  let routedRequests = 0;
  const certificates = [
    '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----',
    '-----BEGIN CERTIFICATE-----\nBBBB\n-----END CERTIFICATE-----',
  ];

  before(async () => {
    // Counts the requests fastify routes: a 304 answered before routing never reaches it.
    server = await createTestServer({
      now: clock.now,
      configure: (app) => app.addHook('onRequest', async () => void (routedRequests += 1)),
    });
    other = await createTestServer({ now: clock.now, database: server.database });
    await server.container.catalog.store.upsertCategories(
      [{ id: 'tools', translations: { en: { name: 'Tools', description: '' } } }],
      clock.now(),
      testAudit,
    );
    for (const name of ['u1', 'u2', 'u3', 'owner']) users.push((await createUser(server.container, name, null)).id);
  });
  after(async () => {
    await other.app.close();
    await server.close();
  });

  const owner = (): number => users[3] ?? 0;

  const register = (appId: string, certificate: string): Promise<void> =>
    registerDirectly(server.container, appId, certificate, owner(), clock.now());
  const publish = (appId: string, version: string, spec: string, words: string): Promise<void> =>
    publishDirectly(
      server.container,
      { appId, version, spec, words, certificate: certificates[0] ?? '', ownerId: owner() },
      clock.now(),
    );

  /** What every variant must decode to: the apps read whole and rendered from scratch. */
  async function expected(variant: (typeof VARIANTS)[number]): Promise<string> {
    const apps = await loadListedApps(server.container.database.db, recentWindowStart(clock.now()).since);
    return renderFromScratch(apps, variant);
  }

  async function served(
    url: string,
    encoding: 'gzip' | 'br',
    again = true,
  ): Promise<{ text: string; etag: string; encoding: string; bytes: number }> {
    const response = await server.app.inject({ method: 'GET', url, headers: { 'accept-encoding': encoding } });
    assert.equal(response.statusCode, 200);
    const sent = String(response.headers['content-encoding'] ?? 'identity');
    if (encoding === 'br' && sent !== 'br' && again) {
      // Brotli is made in the background (gzip meanwhile), and kept only when it saves enough.
      await server.container.listings.engine.brotliSettled();
      return served(url, encoding, false);
    }
    const body =
      sent === 'gzip'
        ? zlib.gunzipSync(response.rawPayload)
        : sent === 'br'
          ? zlib.brotliDecompressSync(response.rawPayload)
          : response.rawPayload;
    return {
      text: body.toString(),
      etag: String(response.headers.etag),
      encoding: sent,
      bytes: response.rawPayload.byteLength,
    };
  }

  test('random catalogues and random writes: every variant, gzip and br, decodes to the whole render; ETags move on every write and agree across two nodes', async () => {
    const rng = random(20261123);
    const apps = ['alpha', 'beta', 'gamma', 'delta', 'eps'];
    for (const appId of apps) {
      await register(appId, certificates[0] ?? '');
      for (let r = 0; r < 1 + rng.int(3); r++)
        await publish(appId, `1.${r}.0`, rng.pick(SPECS), `release ${r} of ${appId}`);
    }
    const writes: Array<[string, () => Promise<unknown>]> = [
      ['publish', async () => publish(rng.pick(apps), `2.${rng.int(5)}.0`, rng.pick(SPECS), `words ${rng.int(1000)}`)],
      [
        'delete a release',
        async () => {
          const appId = rng.pick(apps);
          const found = await server.container.publishing.releases.findRelease(appId, `1.${rng.int(3)}.0`, false);
          return found === null
            ? publish(appId, '3.0.0', '*', 'instead')
            : server.container.publishing.releases.deleteRelease(found.id, clock.now(), testAudit());
        },
      ],
      // (The rating store is written directly: a deleted app is registered again instead, as the use case refuses to rate it.)
      [
        'rate',
        async () => {
          const appId = rng.pick(apps);
          if ((await server.container.appManagement.registry.findApp(appId)) === null)
            return register(appId, certificates[0] ?? '');
          return server.container.ratings.ratings.upsertRating(
            appId,
            rng.pick(users.slice(0, 3)),
            rng.int(5) / 4,
            { en: `comment ${rng.int(99)}` },
            clock.now(),
            testAudit(),
          );
        },
      ],
      [
        'delete a rating',
        async () => {
          const appId = rng.pick(apps);
          if ((await server.container.appManagement.registry.findApp(appId)) === null)
            return register(appId, certificates[0] ?? '');
          const user = rng.pick(users.slice(0, 3));
          const deleted = await server.container.ratings.ratings.deleteRating(appId, user, clock.now(), testAudit());
          return (
            deleted || server.container.ratings.ratings.upsertRating(appId, user, 0.25, {}, clock.now(), testAudit())
          );
        },
      ],
      [
        'flag',
        async () =>
          server.container.appManagement.registry.setFlags(
            rng.pick(apps),
            rng.int(2) === 0 ? { featured: rng.int(2) === 0 } : { enterpriseOnly: rng.int(2) === 0 },
            clock.now(),
            testAudit(),
          ),
      ],
      ['certificate change', async () => register(rng.pick(apps), rng.pick(certificates))],
      [
        'category',
        async () =>
          server.container.catalog.store.upsertCategories(
            [{ id: 'tools', translations: { en: { name: `Tools ${rng.int(99)}`, description: '' } } }],
            clock.now(),
            testAudit,
          ),
      ],
      [
        'platform',
        async () =>
          server.container.catalog.store.upsertPlatformReleases(
            [{ version: `3${rng.int(3)}.0.0`, hasRelease: true, isSupported: rng.int(2) === 0 }],
            clock.now(),
            testAudit,
          ),
      ],
      [
        'delete app',
        async () => {
          const appId = rng.pick(apps);
          return (
            (await server.container.appManagement.registry.deleteApp(appId, clock.now(), testAudit())) ||
            register(appId, certificates[0] ?? '')
          );
        },
      ],
    ];
    // Each kind of write once (in an order of the seed's), then random ones: 30 steps in all in
    // `npm test`, 300 in `npm run test:long`.
    const firstRound = writes
      .map((write) => [rng.int(1000), write] as const)
      .sort((a, b) => a[0] - b[0])
      .map(([, write]) => write);
    const steps = LONG_RUNS ? 300 : 30;
    let previous = new Map<string, string>();
    const declinedAt = new Map<string, number>(); // the gzip size of a variant whose brotli body was declined
    for (let step = 0; step < steps; step++) {
      const [name, write] = firstRound[step] ?? rng.pick(writes);
      const versionBefore = await contentVersion(server);
      await write();
      const moved = (await contentVersion(server)) > versionBefore;
      if (step % 7 === 6) clock.advance(86_400_000 * 30); // the 90-day window moves too
      const etags = new Map<string, string>();
      for (const variant of VARIANTS) {
        const want = await expected(variant);
        const gzip = await served(variant.url, 'gzip');
        assert.equal(gzip.text, want, `step ${step} (${name}): ${variant.url} in gzip`);
        const br = await served(variant.url, 'br');
        assert.equal(br.text, want, `step ${step} (${name}): ${variant.url} in br`);
        // Brotli is kept when it saves at least a fifth of the gzip body (the default), judged
        // again only once the gzip body's size has moved by a tenth since a brotli body was
        // declined. Close to the line either may happen (this brotli is made in one go, the
        // engine's from a stream). (A body too small to compress is sent as it is to gzip.)
        if (gzip.encoding === 'gzip') {
          const declined = declinedAt.get(variant.url);
          const judgedAgain = declined === undefined || Math.abs(gzip.bytes - declined) >= 0.1 * declined;
          const saving = 1 - brotliSize(want) / gzip.bytes;
          const where = `step ${step} (${name}): ${variant.url}, brotli saves ${(saving * 100).toFixed(1)}%`;
          if (judgedAgain && saving >= 0.25) assert.equal(br.encoding, 'br', `${where}: a brotli body`);
          if (judgedAgain && saving < 0.15) assert.notEqual(br.encoding, 'br', `${where}: no brotli body`);
          if (!judgedAgain)
            assert.notEqual(br.encoding, 'br', `${where}: declined at about this size, not compressed again`);
          if (br.encoding === 'br') declinedAt.delete(variant.url);
          else if (judgedAgain) declinedAt.set(variant.url, gzip.bytes);
        }
        if (want.length > 2000) assert.equal(gzip.encoding, 'gzip');
        etags.set(variant.url, gzip.etag);
        if (moved)
          assert.notEqual(
            gzip.etag,
            previous.get(variant.url),
            `step ${step} (${name}): the ETag moved with the write`,
          );
        // The other node, on the same database, agrees within a second.
        await eventually(async () => {
          const there = await other.app.inject({
            method: 'GET',
            url: variant.url,
            headers: { 'accept-encoding': 'gzip' },
          });
          assert.equal(there.headers.etag, gzip.etag, `step ${step}: both nodes give one ETag`);
        });
      }
      previous = etags;
    }
  });

  test('a write to one app changes exactly that app in every variant', async () => {
    const before = new Map<string, unknown[]>();
    for (const variant of VARIANTS)
      before.set(variant.url, JSON.parse((await served(variant.url, 'gzip')).text) as unknown[]);
    const listed = (before.get(VARIANTS[0].url) ?? []) as Array<{ id: string; isFeatured: boolean }>;
    const target = listed[0];
    assert.ok(target !== undefined, 'the catalogue has an app');
    await server.container.appManagement.registry.setFlags(
      target.id,
      { featured: !target.isFeatured },
      clock.now(),
      testAudit(),
    );
    for (const variant of VARIANTS) {
      const after = JSON.parse((await served(variant.url, 'gzip')).text) as Array<{ id: string }>;
      const earlier = before.get(variant.url) as Array<{ id: string }>;
      assert.deepEqual(
        after.map((a) => a.id),
        earlier.map((a) => a.id),
      );
      after.forEach((app, i) => {
        const same = JSON.stringify(app) === JSON.stringify(earlier[i]);
        assert.equal(same, app.id !== target.id, `${variant.url}: ${app.id} ${same ? 'unchanged' : 'changed'}`);
      });
    }
  });

  test('brotli is compressed only for clients that accept it: gzip requests after a write start none', async () => {
    // A new body (after a write) asked for in gzip only, and time enough for a compression to finish.
    await register('zeta', certificates[0] ?? '');
    for (let r = 0; r < 3; r++) await publish('zeta', `4.${r}.0`, '*', `release ${r} of zeta`);
    const url = '/api/v1/platform/31.0.0/apps.json?include_enterprise=true'; // a variant no client asked for in brotli yet
    for (let i = 0; i < 3; i++) await served(url, 'gzip');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const first = await server.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip, br' } });
    assert.equal(
      first.headers['content-encoding'],
      'gzip',
      'the first client that accepts brotli gets gzip: nothing had compressed it',
    );
    assert.equal((await served(url, 'br')).encoding, 'br', 'then brotli, made in the background');
  });

  test('APPSTORE_LISTING_BROTLI_MIN_SAVING: a brotli body that saves less is never served; gzip is, with Vary', async () => {
    const stingy = await createTestServer({
      now: clock.now,
      database: server.database,
      env: { APPSTORE_LISTING_BROTLI_MIN_SAVING: '100' },
    });
    try {
      const url = '/api/v1/apps.json?include_enterprise=true';
      const ask = () => stingy.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip, deflate, br' } });
      assert.equal((await ask()).headers['content-encoding'], 'gzip');
      await new Promise((resolve) => setTimeout(resolve, 300)); // the compression, made and declined
      const later = await ask();
      assert.equal(later.headers['content-encoding'], 'gzip');
      assert.match(String(later.headers.vary), /accept-encoding/i);
      assert.equal(zlib.gunzipSync(later.rawPayload).toString(), await expected(VARIANTS[0]));
      assert.equal(
        (await served(url, 'br')).encoding,
        'br',
        'the node with the default share serves brotli (this data saves more than a fifth)',
      );
    } finally {
      await stingy.app.close();
    }
  });

  test("the parts are saved in the database: a node that starts takes those that are current and sound, renders the others, and keeps other formats' parts", async () => {
    // Four apps of its own: however many the random writes above left listed, there are four.
    for (const appId of ['kappa', 'lambda', 'mu', 'nu']) {
      await register(appId, certificates[0] ?? '');
      await publish(appId, '1.0.0', '*', `a part for ${appId}`);
    }
    const url = '/api/v1/apps.json?include_enterprise=true';
    const want = await expected(VARIANTS[0]);
    assert.equal((await served(url, 'gzip')).text, want);
    const db = server.container.database.db;
    const index = await db
      .selectFrom('apps')
      .select(['id', 'listing_version'])
      .where((eb) =>
        eb.exists(eb.selectFrom('releases').select('releases.id').whereRef('releases.app_id', '=', 'apps.id')),
      )
      .orderBy('id')
      .execute();
    // The parts are saved in the background after the render.
    const saved = await eventually(async () => {
      // (An app whose last release was deleted keeps the part it had: it is not current, and a
      // new release gives the app a later listing version.)
      const listed = new Set(index.map((row) => row.id));
      const rows = (
        await db.selectFrom('listing_parts').select(['app_id', 'listing_version', 'format']).orderBy('app_id').execute()
      ).filter((row) => listed.has(row.app_id));
      assert.deepEqual(
        rows.map((row) => [row.app_id, Number(row.listing_version)]),
        index.map((row) => [row.id, Number(row.listing_version)]),
        'one current part per listed app',
      );
      return rows;
    });

    // The first app's saved part replaced by the second's (same listing version), with the checksum
    // such a part would have: a node that takes saved parts serves the second app twice, which
    // shows it read them instead of rendering.
    const [first, second, third, fourth] = index;
    assert.ok(
      first !== undefined && second !== undefined && third !== undefined && fourth !== undefined,
      'the catalogue has four apps',
    );
    const format = saved[0]?.format ?? '';
    const part = await db
      .selectFrom('listing_parts')
      .selectAll()
      .where('app_id', '=', second.id)
      .executeTakeFirstOrThrow();
    await db
      .updateTable('listing_parts')
      .set({
        deflated: part.deflated,
        crc: part.crc,
        text_length: part.text_length,
        head_length: part.head_length,
        releases: part.releases,
      })
      .where('app_id', '=', first.id)
      .execute();
    const [swapped] = await loadSavedParts(db, [first.id], format);
    assert.ok(swapped !== undefined);
    await db
      .updateTable('listing_parts')
      .set({ checksum: partChecksum(swapped, format) })
      .where('app_id', '=', first.id)
      .execute();
    // A part made by other code (another format) is not taken: that app is rendered.
    await db.updateTable('listing_parts').set({ format: 'other code' }).where('app_id', '=', third.id).execute();
    // A damaged part (its bytes changed, not its checksum) is not taken: that app is rendered.
    const damaged = await db
      .selectFrom('listing_parts')
      .select('deflated')
      .where('app_id', '=', fourth.id)
      .executeTakeFirstOrThrow();
    const bytes = Buffer.from(damaged.deflated);
    bytes[0] = (bytes[0] ?? 0) ^ 0xff;
    await db.updateTable('listing_parts').set({ deflated: bytes }).where('app_id', '=', fourth.id).execute();
    const node = await createTestServer({ now: clock.now, database: server.database });
    try {
      const response = await node.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip' } });
      const apps = JSON.parse(zlib.gunzipSync(response.rawPayload).toString()) as Array<{ id: string }>;
      const wanted = JSON.parse(want) as Array<{ id: string }>;
      assert.deepEqual(
        apps.map((app) => app.id),
        [second.id, ...wanted.slice(1).map((app) => app.id)],
      );
      assert.deepEqual(apps.slice(1), wanted.slice(1), 'every other app as rendered');
      // A rolling upgrade: the part of the other version stays beside this one's (saved in the background).
      await eventually(async () => {
        const formats = await db
          .selectFrom('listing_parts')
          .select('format')
          .where('app_id', '=', third.id)
          .orderBy('format')
          .execute();
        assert.deepEqual(
          formats.map((row) => row.format).sort(),
          [format, 'other code'].sort(),
          "both versions' parts are kept",
        );
        const repaired = await loadSavedParts(db, [fourth.id], format);
        assert.equal(
          repaired[0]?.checksum,
          partChecksum(repaired[0] as SavedPart, format),
          'the damaged part was saved again, sound',
        );
      });
    } finally {
      await node.app.close();
    }
  });

  test('over HTTP, a matching conditional request is answered before routing, with the headers of the route', async () => {
    await server.app.listen({ host: '127.0.0.1', port: 0 });
    const origin = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;
    for (const url of [
      '/api/v1/apps.json',
      '/api/v1//platform/30.0.0/apps.json/?include_enterprise=TRUE',
      '/api/v1/categories.json',
    ]) {
      const first = await fetch(`${origin}${url}`);
      const etag = String(first.headers.get('etag'));
      await first.arrayBuffer();
      const routedBefore = routedRequests;
      const fast = await fetch(`${origin}${url}`, { headers: { 'if-none-match': etag, 'x-request-id': 'poll-1' } });
      assert.equal(routedRequests, routedBefore, `${url}: the 304 was answered before routing`);
      // inject() goes to the routes directly: what the route itself answers.
      const routed = await server.app.inject({
        method: 'GET',
        url,
        headers: { 'if-none-match': etag, 'x-request-id': 'poll-1' },
      });
      assert.equal(fast.status, 304);
      assert.equal(routed.statusCode, 304);
      const names = [
        'etag',
        'last-modified',
        'vary',
        'cache-control',
        'access-control-allow-origin',
        'access-control-expose-headers',
        'x-request-id',
        'x-content-type-options',
      ];
      for (const name of names)
        assert.equal(
          fast.headers.get(name),
          routed.headers[name] === undefined ? null : String(routed.headers[name]),
          `${url}: ${name}`,
        );
      assert.equal(
        (await fetch(`${origin}${url}`, { method: 'HEAD', headers: { 'if-none-match': etag } })).status,
        304,
      );
      const routedBeforeStale = routedRequests;
      const stale = await fetch(`${origin}${url}`, { headers: { 'if-none-match': '"other"' } });
      assert.equal(stale.status, 200);
      assert.equal(routedRequests, routedBeforeStale + 1, 'a changed listing goes to the route');
      await stale.arrayBuffer();
    }
    // After a write, the ETag kept for a polled address is not answered with a 304 any more.
    const polled = '/api/v1/apps.json';
    const before = await fetch(`${origin}${polled}`);
    const etag = String(before.headers.get('etag'));
    await before.arrayBuffer();
    assert.equal((await fetch(`${origin}${polled}`, { headers: { 'if-none-match': etag } })).status, 304);
    const listed = JSON.parse((await served(polled, 'gzip')).text) as Array<{ id: string; isFeatured: boolean }>;
    const target = listed[0];
    assert.ok(target !== undefined);
    await server.container.appManagement.registry.setFlags(
      target.id,
      { featured: !target.isFeatured },
      clock.now(),
      testAudit(),
    );
    const after = await fetch(`${origin}${polled}`, { headers: { 'if-none-match': etag } });
    assert.equal(after.status, 200, 'the write moved the ETag: the old one is not current');
    assert.notEqual(after.headers.get('etag'), etag);
    const text = Buffer.from(await after.arrayBuffer()).toString();
    assert.equal(
      text,
      await expected(VARIANTS[1]),
      'the body sent as its parts over a real connection decodes to the whole render',
    );
  });
});
