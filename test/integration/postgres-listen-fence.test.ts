import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { DatabaseHandle } from '../../src/storage/database.ts';
import { DIALECT, createTestDatabase } from '../helpers/test-database.ts';
import type { TestDatabase } from '../helpers/test-database.ts';

/*
 * The listening connection's fence (issue 55), against a real server: what a GET waits for on
 * PostgreSQL, in place of a read of the content version. Once it resolves, every notification of
 * a commit acknowledged before it was sent must have been handed over. Checked with nothing else
 * to wait for: the fence is sent in the same turn as the commit's acknowledgement is taken, so
 * the notification can only have arrived first if the server sent it before answering the fence.
 */

describe(`the listening connection's fence (${DIALECT})`, () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  before(async () => {
    database = await createTestDatabase();
    handle = await database.open({ migrate: false });
  });
  after(() => database.dispose());

  const onPostgres = { skip: DIALECT !== 'postgres' && 'PostgreSQL only (APPSTORE_TEST_DATABASE_URL)' };

  test(
    'after it, the notification of every commit acknowledged before it has been heard (200 times)',
    onPostgres,
    async () => {
      const listen = handle.listen;
      assert.ok(listen !== null);
      const heard: string[] = [];
      const listening = await listen(
        'appstore_fence_probe',
        (payload) => heard.push(payload),
        () => undefined,
      );
      try {
        for (let i = 0; i < 200; i++) {
          await sql`select pg_notify('appstore_fence_probe', ${String(i)})`.execute(handle.db);
          await listening.fence();
          assert.equal(heard.at(-1), String(i), `commit ${i}: not heard when its fence resolved`);
        }
        assert.equal(heard.length, 200);
      } finally {
        await listening.stop();
      }
    },
  );

  test('a fence on a connection that has ended rejects', onPostgres, async () => {
    const listen = handle.listen;
    assert.ok(listen !== null);
    const listening = await listen(
      'appstore_fence_probe',
      () => undefined,
      () => undefined,
    );
    await listening.stop();
    await assert.rejects(listening.fence());
  });
});
