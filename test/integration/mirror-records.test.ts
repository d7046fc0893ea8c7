import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { auditEntry } from '../../src/domain/audit/audit.ts';
import type { MirroredRelease, MirrorUpdate } from '../../src/domain/mirror/mirror-ports.ts';
import type { DatabaseHandle } from '../../src/storage/database-handle.ts';
import { mirrorRepository, readMirrorRecords } from '../../src/storage/repositories/mirror.repository.ts';
import { TEST_ACTING } from '../helpers/acting.ts';
import { DIALECT, createTestDatabase } from '../helpers/test-database.ts';
import type { TestDatabase } from '../helpers/test-database.ts';

/** A record of a release considered, as a sync keeps it. */
const record = (i: number, changes: Partial<MirroredRelease> = {}): MirroredRelease => ({
  appId: `app_${String(i % 50).padStart(2, '0')}`,
  version: `1.${Math.floor(i / 50)}.0`,
  nightly: false,
  upstreamDownload: `https://upstream.example/${i}.tar.gz`,
  signature: `signature-${i}`,
  status: 'listed',
  reason: '',
  sha256: `${i}`.padStart(64, '0'),
  size: 1000 + i,
  checkedAt: '2026-11-28T10:00:00.000Z',
  checkedWith: 'trust-1',
  keptEntry: null,
  ...changes,
});

const update = (releases: MirroredRelease[], body = '[]'): MirrorUpdate => ({
  documents: [{ name: 'apps', etag: `"${body.length}"`, body }],
  categories: null,
  platforms: null,
  discover: null,
  apps: [],
  droppedApps: [],
  releases,
});

describe(`the mirror's record of releases considered (${DIALECT})`, () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  before(async () => {
    database = await createTestDatabase({ migrated: true });
    handle = await database.open();
  });
  after(async () => database.dispose());

  test('kept as it is when the same, written again when any record, field or count differs (over several pages)', async () => {
    const store = mirrorRepository(handle.db);
    const apply = (releases: MirroredRelease[], body?: string) =>
      store.apply(update(releases, body), new Date(), auditEntry(TEST_ACTING, 'mirror.synced', { details: {} }));
    const byRelease = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
    const stored = async () =>
      (await readMirrorRecords(handle.db)).map((r) => `${r.appId} ${r.version} ${r.reason}`).sort(byRelease);
    // More records than one page of the comparison (2,000).
    const records = Array.from({ length: 4_100 }, (_, i) => record(i));
    await apply(records);
    assert.equal((await readMirrorRecords(handle.db)).length, 4_100);

    // Checked again later, nothing else changed: the times are not what is compared.
    await apply(records.map((r) => ({ ...r, checkedAt: '2026-11-28T11:00:00.000Z' })));
    assert.equal((await readMirrorRecords(handle.db))[0]?.checkedAt, '2026-11-28T10:00:00.000Z', 'kept as it was');

    for (const [what, changed] of [
      ['a reason, on the last page', records.map((r, i) => (i === 4_099 ? { ...r, reason: 'refused now' } : r))],
      ['a signature', records.map((r, i) => (i === 10 ? { ...r, signature: 'another' } : r))],
      ['the trust settings', records.map((r, i) => (i === 2_500 ? { ...r, checkedWith: 'trust-2' } : r))],
      ['one record fewer', records.slice(1)],
      ['one replaced by another', [...records.slice(1), record(9_999)]],
    ] as const) {
      await apply(records);
      await apply([...changed]);
      const now = await readMirrorRecords(handle.db);
      assert.equal(now.length, changed.length, what);
      assert.deepEqual(
        await stored(),
        [...changed].map((r) => `${r.appId} ${r.version} ${r.reason}`).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
        what,
      );
    }
  });

  test('a saved document is replaced by the next one, whole', async () => {
    const store = mirrorRepository(handle.db);
    const body = JSON.stringify([{ id: 'x'.repeat(100_000) }]);
    await store.apply(update([], body), new Date(), auditEntry(TEST_ACTING, 'mirror.synced', { details: {} }));
    await store.apply(update([], '[1]'), new Date(), auditEntry(TEST_ACTING, 'mirror.synced', { details: {} }));
    const state = await store.state();
    assert.deepEqual(state.documents.get('apps'), { etag: '"3"', body: '[1]' });
  });
});
