import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { describe, test } from 'node:test';
import { listedApp as baseApp, listedRelease, renderFromScratch } from '../../../helpers/listed-app.ts';
import type { ListedApp, ListingVariant } from '../../../../src/domain/listings/app-listing.ts';
import type { AppListingReads, AppListingSource } from '../../../../src/domain/listings/app-listing-engine.ts';
import type { SavedPart } from '../../../../src/domain/listings/app-part.ts';
import { AppListingEngine } from '../../../../src/domain/listings/app-listing-engine.ts';
import { joinChunks } from '../../../helpers/listing-bytes.ts';
import { eventually } from '../../../helpers/eventually.ts';
import type { RecentWindow } from '../../../../src/domain/listings/rating-aggregate.ts';

const release = listedRelease;
/** An app with three releases over different Nextcloud ranges, an author and some text. */
const listedApp = (id: string, extra: Partial<ListedApp> = {}): ListedApp =>
  baseApp(id, {
    authors: [{ name: 'Ann', mail: '', homepage: '' }],
    translations: { en: { name: id, summary: `${id} summary`, description: 'text '.repeat(50) } },
    certificate: '-----BEGIN CERTIFICATE-----\nMII\n-----END CERTIFICATE-----',
    releases: [
      release('1.0.0', '>=29.0.0 <31.0.0'),
      release('2.0.0', '>=30.0.0 <32.0.0'),
      release('0.9.0', '>=28.0.0 <30.0.0'),
    ],
    ...extra,
  });

/** A store in memory: apps with their listing versions, and a log of what the engine read. */
class FakeStore implements AppListingSource {
  version = 1;
  /** The database's epoch: a restore changes it. */
  epoch = 'x';
  readonly apps = new Map<string, { app: ListedApp; listingVersion: number }>();
  readonly loaded: string[] = [];
  recentCounts = new Map<string, number>();

  get stamp() {
    return { version: this.version, changedAt: new Date(0), instanceId: this.epoch };
  }

  put(app: ListedApp): void {
    this.version += 1;
    this.apps.set(app.id, { app, listingVersion: this.version });
  }

  remove(id: string): void {
    this.version += 1;
    this.apps.delete(id);
  }

  async index() {
    const apps = [...this.apps.values()]
      .filter((a) => a.app.releases.length > 0)
      .map((a) => ({ id: a.app.id, listingVersion: a.listingVersion }));
    apps.sort((a, b) => (a.id < b.id ? -1 : 1));
    return { stamp: this.stamp, apps };
  }

  async load(ids: readonly string[]) {
    this.loaded.push(...ids);
    return ids.flatMap((id) => {
      const entry = this.apps.get(id);
      return entry === undefined || entry.app.releases.length === 0 ? [] : [entry];
    });
  }

  async recentRatingCounts() {
    return this.recentCounts;
  }

  readonly saved = new Map<string, { format: string; part: SavedPart }>();

  async savedParts(ids: readonly string[], format: string) {
    return ids.flatMap((id) => {
      const entry = this.saved.get(id);
      return entry === undefined || entry.format !== format ? [] : [{ ...entry.part, cuts: new Map() }];
    });
  }

  /** In one snapshot, nothing commits meanwhile (the tests' racing writers wait). */
  async inOneSnapshot<T>(work: (reads: AppListingReads) => Promise<T>): Promise<T> {
    this.snapshots += 1;
    this.inSnapshot = true;
    try {
      return await work(this);
    } finally {
      this.inSnapshot = false;
    }
  }

  snapshots = 0;
  inSnapshot = false;

  async saveParts(parts: readonly SavedPart[], format: string) {
    for (const part of parts) this.saved.set(part.id, { format, part });
  }

  /** apps.json as the whole-catalogue render makes it: the oracle. */
  fromScratch(variant: ListingVariant): string {
    const apps = [...this.apps.values()].map((a) => a.app).filter((a) => a.releases.length > 0);
    apps.sort((a, b) => (a.id < b.id ? -1 : 1));
    return renderFromScratch(apps, variant);
  }
}

const DAY: RecentWindow = { since: '2026-01-01T00:00:00.000000Z', day: '20260401' };
const options = {
  batchSize: 2,
  savedBatchSize: 32,
  maxBytes: 64 * 1024 * 1024,
  gzipLevel: 6,
  brotliQuality: 5,
  brotliMinSaving: 0,
  partFormat: 'test format',
};
const VARIANTS: ListingVariant[] = [
  { includeEnterprise: true },
  { includeEnterprise: false },
  { includeEnterprise: true, platform: '30.0.0' },
  { includeEnterprise: false, platform: '28.0.5' },
  { includeEnterprise: false, platform: '40.0.0' },
];

async function checkAll(engine: AppListingEngine, store: FakeStore, window = DAY): Promise<void> {
  for (const variant of VARIANTS) {
    const body = await engine.body(variant, window, store.stamp);
    const text = zlib.gunzipSync(joinChunks(body.gzip)).toString();
    assert.equal(text, store.fromScratch(variant), JSON.stringify(variant));
    assert.equal(body.length, Buffer.byteLength(text));
    assert.doesNotThrow(() => JSON.parse(text));
  }
}

describe('the app listing engine', () => {
  test('every variant decodes to exactly the whole-catalogue render; after one write only that app is read again', async () => {
    const store = new FakeStore();
    for (const id of ['a', 'b', 'c', 'd', 'e']) store.put(listedApp(id, { isEnterpriseOnly: id === 'c' }));
    store.put(listedApp('empty', { releases: [] }));
    const engine = new AppListingEngine(store, options);
    await checkAll(engine, store);
    assert.deepEqual(store.loaded.sort(), ['a', 'b', 'c', 'd', 'e']);

    store.loaded.length = 0;
    store.put(listedApp('b', { isFeatured: true, releases: [release('3.0.0', '>=30.0.0')] }));
    await checkAll(engine, store);
    assert.deepEqual(store.loaded, ['b'], 'only the changed app is read again');

    store.loaded.length = 0;
    store.remove('d');
    store.put(listedApp('empty', { releases: [release('1.0.0', '*')] }));
    store.put(listedApp('c', { isEnterpriseOnly: false }));
    await checkAll(engine, store);
    assert.deepEqual(store.loaded.sort(), ['c', 'empty']);
  });

  test('a new engine (a restart, another node) takes the saved parts that are current and renders only the others', async () => {
    const store = new FakeStore();
    for (const id of ['a', 'b', 'c', 'd']) store.put(listedApp(id, { ratingNumRecent: id === 'd' ? 1 : 0 }));
    store.recentCounts = new Map([['d', 1]]);
    const first = new AppListingEngine(store, options);
    await first.body({ includeEnterprise: false }, DAY, store.stamp);
    assert.equal(store.saved.size, 0, 'the body first: saving waits for a turn of the event loop');
    await checkAll(first, store);
    await eventually(async () => assert.deepEqual([...store.saved.keys()].sort(), ['a', 'b', 'c', 'd']));

    // Meanwhile: b changed, c's saved part was made by other code, d's rating left the window.
    store.put(listedApp('b', { isFeatured: true }));
    const c = store.saved.get('c');
    if (c !== undefined) store.saved.set('c', { ...c, format: 'other' });
    store.recentCounts = new Map();
    store.apps.set('d', { app: listedApp('d'), listingVersion: store.apps.get('d')?.listingVersion ?? 0 });
    store.loaded.length = 0;
    const second = new AppListingEngine(store, options);
    await checkAll(second, store);
    assert.deepEqual(store.loaded.sort(), ['b', 'c', 'd'], 'a was taken as saved');
    await eventually(async () =>
      assert.equal(
        store.saved.get('b')?.part.listingVersion,
        store.apps.get('b')?.listingVersion,
        'the new part of b is saved',
      ),
    );
  });

  test('saved parts are read as many per query as the options say (PostgreSQL reads them in one)', async () => {
    const store = new FakeStore();
    const ids = ['a', 'b', 'c', 'd', 'e'];
    for (const id of ids) store.put(listedApp(id));
    const first = new AppListingEngine(store, options);
    await first.body({ includeEnterprise: false }, DAY, store.stamp);
    await first.finishSaving();
    const read = store.savedParts.bind(store);
    for (const [savedBatchSize, expected] of [
      [2, [['a', 'b'], ['c', 'd'], ['e']]],
      [1024, [ids]],
    ] as const) {
      const asked: string[][] = [];
      store.savedParts = async (batch, format) => {
        asked.push([...batch]);
        return read(batch, format);
      };
      store.loaded.length = 0;
      const engine = new AppListingEngine(store, { ...options, savedBatchSize });
      await checkAll(engine, store);
      assert.deepEqual(asked, expected);
      assert.deepEqual(store.loaded, [], 'every app was taken as saved');
    }
  });

  test('a store that stops saves the parts of a large render at once, not after the pause that lets bodies go first', async (t) => {
    const store = new FakeStore();
    const ids = Array.from({ length: 70 }, (_, i) => `app${String(i).padStart(2, '0')}`);
    for (const id of ids) store.put(listedApp(id));
    // The pause is a timer that never fires here: only finishSaving can end it.
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const engine = new AppListingEngine(store, options);
    await engine.body({ includeEnterprise: false }, DAY, store.stamp);
    for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(store.saved.size, 0, 'more than 64 parts: saving waits');
    await engine.finishSaving();
    assert.deepEqual([...store.saved.keys()].sort(), ids);
  });

  test('a failure to read or save parts only costs a render', async () => {
    const store = new FakeStore();
    for (const id of ['a', 'b']) store.put(listedApp(id));
    const failures: unknown[] = [];
    store.savedParts = async () => Promise.reject(new Error('database unavailable'));
    store.saveParts = async () => Promise.reject(new Error('database unavailable'));
    const engine = new AppListingEngine(store, { ...options, onPartsError: (error) => failures.push(error) });
    await checkAll(engine, store);
    await eventually(async () => assert.ok(failures.length >= 2));
  });

  test('the same version is served from the assembled body: nothing is read or assembled again', async () => {
    const store = new FakeStore();
    store.put(listedApp('a'));
    const engine = new AppListingEngine(store, options);
    const first = await engine.body({ includeEnterprise: false }, DAY, store.stamp);
    const again = await engine.body({ includeEnterprise: false }, DAY, store.stamp);
    assert.equal(again, first);
    assert.deepEqual(store.loaded, ['a']);
  });

  test('brotli is made in the background from the gzip body, and decodes to the same text', async () => {
    const store = new FakeStore();
    for (const id of ['a', 'b', 'c']) store.put(listedApp(id));
    const engine = new AppListingEngine(store, options);
    const body = await engine.body({ includeEnterprise: true }, DAY, store.stamp);
    assert.equal(body.brotliIfMade(), null);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(body.brotliIfMade(), null, 'looking does not start it');
    assert.equal(body.brotli(), null, 'not compressed until asked for');
    const br = await eventually(async () => {
      const made = body.brotli();
      assert.ok(made !== null, 'no brotli body yet');
      return made;
    });
    assert.equal(zlib.brotliDecompressSync(br).toString(), zlib.gunzipSync(joinChunks(body.gzip)).toString());
    // A variant asked for in brotli is compressed again after the next write, without being asked.
    store.put(listedApp('b', { isFeatured: true }));
    const next = await engine.body({ includeEnterprise: true }, DAY, store.stamp);
    await eventually(async () =>
      assert.equal(
        zlib.brotliDecompressSync(next.brotli() ?? Buffer.alloc(0)).toString(),
        store.fromScratch({ includeEnterprise: true }),
      ),
    );
  });

  test('a brotli body that saves less than the share asked is not kept, nor made again until the listing grows or shrinks by a tenth', async () => {
    const store = new FakeStore();
    for (const id of ['a', 'b', 'c']) store.put(listedApp(id));
    const variant = { includeEnterprise: true };
    const madeBy = async (minSaving: number, compressions: string[] = []) => {
      const engine = new AppListingEngine(store, {
        ...options,
        brotliMinSaving: minSaving,
        onRender: (what) => void (what === 'brotli' && compressions.push(what)),
      });
      const body = await engine.body(variant, DAY, store.stamp);
      body.brotli();
      await eventually(async () => assert.equal(compressions.length, 1));
      return { engine, body, compressions };
    };
    const reference = (await madeBy(0)).body;
    const br = reference.brotliIfMade();
    assert.ok(br !== null);
    const saving = 1 - br.length / reference.gzip.byteLength;
    assert.ok(saving > 0.01, `brotli saves ${saving} on this listing`);

    const kept = await madeBy(saving * 0.99);
    assert.deepEqual(kept.body.brotli(), br, 'a saving just over the share: kept');

    const declined = await madeBy(saving * 1.01);
    assert.equal(declined.body.brotli(), null, 'a saving just under it: gzip serves');
    assert.equal(declined.body.brotliIfMade(), null);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(declined.compressions.length, 1, 'asking again does not compress again');
    // A small change: the saving cannot have moved much, nothing is compressed.
    store.put(listedApp('b', { isFeatured: true }));
    const next = await declined.engine.body(variant, DAY, store.stamp);
    assert.equal(next.brotli(), null);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(declined.compressions.length, 1, 'a small change does not compress again');
    // The listing doubles: judged again (and still declined, the apps being alike).
    for (const id of ['d', 'e', 'f']) store.put(listedApp(id));
    const grown = await declined.engine.body(variant, DAY, store.stamp);
    assert.ok(grown.gzip.byteLength > 1.5 * next.gzip.byteLength);
    assert.equal(grown.brotli(), null);
    await eventually(async () => assert.equal(declined.compressions.length, 2));
  });

  test('when the 90-day window moves, only apps whose recent-rating count changed are read again', async () => {
    const store = new FakeStore();
    store.put(listedApp('a', { ratingNumRecent: 2, ratingNumOverall: 2, ratingRecent: 1, ratingOverall: 1 }));
    store.put(listedApp('b', { ratingNumRecent: 1, ratingNumOverall: 1, ratingRecent: 1, ratingOverall: 1 }));
    store.recentCounts = new Map([
      ['a', 2],
      ['b', 1],
    ]);
    const engine = new AppListingEngine(store, options);
    await checkAll(engine, store);
    store.loaded.length = 0;
    // The next day, b's only rating is older than 90 days: its text changes, a's does not.
    const nextDay = { since: '2026-01-02T00:00:00.000000Z', day: '20260402' };
    store.recentCounts = new Map([['a', 2]]);
    store.apps.set('b', {
      app: listedApp('b', { ratingNumRecent: 0, ratingNumOverall: 1, ratingRecent: 0.5, ratingOverall: 1 }),
      listingVersion: store.apps.get('b')?.listingVersion ?? 0,
    });
    await checkAll(engine, store, nextDay);
    assert.deepEqual(store.loaded, ['b']);
  });

  test('a write that lands while the engine reads is not mixed into an older version', async () => {
    const store = new FakeStore();
    for (const id of ['a', 'b', 'c', 'd']) store.put(listedApp(id));
    const engine = new AppListingEngine(store, { ...options, batchSize: 1 });
    const load = store.load.bind(store);
    let raced = false;
    store.load = async (ids) => {
      if (!raced && ids[0] === 'c') {
        raced = true;
        // d is read after this write: newer than the index the engine is working from.
        store.put(listedApp('d', { isFeatured: true }));
      }
      return load(ids);
    };
    const asked = store.stamp;
    const body = await engine.body({ includeEnterprise: true }, DAY, asked);
    // The engine saw that the index had moved and read again: what it serves is one consistent version.
    assert.ok(body.stamp.version > asked.version);
    assert.equal(zlib.gunzipSync(joinChunks(body.gzip)).toString(), store.fromScratch({ includeEnterprise: true }));
  });

  test('under a stream of writes, the last pass reads in one snapshot: the body is one version, its ETag the version it shows', async () => {
    const store = new FakeStore();
    for (const id of ['a', 'b', 'c', 'd']) store.put(listedApp(id));
    const engine = new AppListingEngine(store, { ...options, batchSize: 1 });
    const index = store.index.bind(store);
    let writes = 0;
    const write = (): void => {
      writes += 1;
      store.put(listedApp('d', { summary: `write ${writes}` } as Partial<ListedApp>));
    };
    store.index = async () => {
      // Outside a snapshot, writes to d land just before and just after every index read: the
      // part held is never the version the index names, and the one read is newer.
      if (store.inSnapshot) return index();
      write();
      const read = await index();
      write();
      return read;
    };
    const body = await engine.body({ includeEnterprise: true }, DAY, store.stamp);
    assert.equal(store.snapshots, 1, 'one pass in one snapshot, after the others met writes');
    assert.equal(body.stamp.version, store.version);
    assert.equal(zlib.gunzipSync(joinChunks(body.gzip)).toString(), store.fromScratch({ includeEnterprise: true }));
  });

  test('a restore (another epoch, versions counted again): nothing held from before is served, though version numbers match', async () => {
    const store = new FakeStore();
    for (const id of ['a', 'b']) store.put(listedApp(id));
    const engine = new AppListingEngine(store, options);
    const before = await engine.body({ includeEnterprise: true }, DAY, store.stamp);
    await eventually(async () => assert.equal(store.saved.size, 2));
    // The backup held a and b at versions 2 and 3 too, with other content (and saved parts of its
    // own: none here); the restore gives a new epoch.
    store.saved.clear();
    store.epoch = 'y';
    store.version = 1;
    store.put(listedApp('a', { isFeatured: true }));
    store.put(listedApp('b', { isFeatured: true }));
    assert.equal(store.apps.get('b')?.listingVersion, before.stamp.version, 'the same numbers as before the restore');
    const after = await engine.body({ includeEnterprise: true }, DAY, store.stamp);
    assert.deepEqual(after.stamp, store.stamp);
    assert.equal(zlib.gunzipSync(joinChunks(after.gzip)).toString(), store.fromScratch({ includeEnterprise: true }));
    assert.notEqual(
      zlib.gunzipSync(joinChunks(after.gzip)).toString(),
      zlib.gunzipSync(joinChunks(before.gzip)).toString(),
    );
  });

  test('memory: bodies over the bound are dropped, least recently used first; the apps parts stay', async () => {
    const store = new FakeStore();
    for (const id of ['a', 'b', 'c']) store.put(listedApp(id));
    const probe = new AppListingEngine(store, options);
    const one = (await probe.body({ includeEnterprise: true }, DAY, store.stamp)).gzip.byteLength;
    const partsOnly = probe.size - one;
    const engine = new AppListingEngine(store, { ...options, maxBytes: partsOnly + one + 10 });
    await engine.body({ includeEnterprise: true }, DAY, store.stamp);
    await engine.body({ includeEnterprise: false }, DAY, store.stamp);
    assert.ok(engine.size <= partsOnly + one + 10, `${engine.size} bytes held`);
    await checkAll(engine, store);
  });
});
