import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { migrateToLatest } from '../../src/storage/migrate.ts';
import type { DatabaseHandle } from '../../src/storage/database.ts';
import { formatTimestamp } from '../../src/domain/timestamps.ts';
import { isUniqueViolation } from '../../src/storage/database-errors.ts';
import { nestedUseIcon } from '../helpers/hostile-icons.ts';
import { DIALECT, createTestDatabase } from '../helpers/test-database.ts';
import type { TestDatabase } from '../helpers/test-database.ts';

/** Migrations that check data an earlier version stored (issue 49), each from the step before it. */
describe(`migrations that check stored data (${DIALECT})`, () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  const now = formatTimestamp(new Date());
  before(async () => {
    database = await createTestDatabase();
    handle = await database.open({ migrate: false });
  });
  after(() => database.dispose());

  test('0017: a stored icon that draws too much is removed and named; an ordinary one stays', async () => {
    await migrateToLatest(handle, new Date(), { until: '0016-release-listing-text' });
    const { db } = handle;
    const user = await db
      .insertInto('users')
      .values({ username: 'alice', first_name: '', last_name: '', is_admin: false, created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    const plain =
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><path d="M4 4h24v24H4z" fill="#fff"></path></svg>';
    for (const [id, svg] of [
      ['news', plain],
      ['bomb', nestedUseIcon()],
    ] as const) {
      await db
        .insertInto('apps')
        .values({ id, owner_id: user.id, certificate: 'PEM', created_at: now, updated_at: now })
        .execute();
      await db
        .insertInto('app_icons')
        .values({ app_id: id, hash: id.padEnd(32, '0'), svg, dark: false, updated_at: now })
        .execute();
    }
    const report = await migrateToLatest(handle, new Date());
    assert.ok(report.applied.includes('0017-icon-render-cost'));
    assert.deepEqual(
      report.notes.filter((note) => note.startsWith('0017')),
      [
        '0017-icon-render-cost: removed the icon of app bomb: img/app.svg takes more than 200000 units of drawing work (elements, path segments, glyphs and dashes, counted through every <use>, mask and clip-path reference); an icon this costly would freeze the pages that show it',
      ],
    );
    const left = await db.selectFrom('app_icons').select(['app_id', 'svg']).execute();
    assert.deepEqual(left, [{ app_id: 'news', svg: plain }]);
  });

  test('0019: usernames unique ignoring case, by the database; clashes from before are named, kept, never merged', async () => {
    const fresh = await createTestDatabase();
    try {
      const old = await fresh.open({ migrate: false });
      await migrateToLatest(old, new Date(), { until: '0018-transfer-unlock-time' });
      const add = (username: string) =>
        old.db
          .insertInto('users')
          .values({ username, first_name: '', last_name: '', is_admin: false, created_at: now, updated_at: now })
          .execute();
      for (const name of ['admin', 'alice', 'Admin', 'bob', 'ALICE', 'Alice']) await add(name);
      const report = await migrateToLatest(old, new Date());
      assert.deepEqual(
        report.notes.filter((note) => note.startsWith('0019')).map((note) => note.replace(/; kept as .*$/, '')),
        [
          '0019-username-case: usernames that differ only in case: admin (id 1), Admin (id 3)',
          '0019-username-case: usernames that differ only in case: alice (id 2), ALICE (id 5), Alice (id 6)',
        ],
      );
      assert.equal((await old.db.selectFrom('users').select('username').execute()).length, 6, 'nothing merged');
      // The database refuses any new look-alike, of a clash or not.
      for (const name of ['BOB', 'aLiCe', 'ADMIN'])
        await assert.rejects(add(name), (error: unknown) => isUniqueViolation(error), name);
      await add('carol');
      await assert.rejects(add('Carol'), (error: unknown) => isUniqueViolation(error));
    } finally {
      await fresh.dispose();
    }
  });
});
