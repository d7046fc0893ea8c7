import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Kysely } from 'kysely';
import { ContentVersionFeed } from './content-version-feed.ts';
import type { DatabaseHandle } from './database-handle.ts';
import type { Database } from './schema.ts';

/**
 * A PostgreSQL-like handle whose prepared read answers when the test says: each read takes the
 * version committed at the moment it is sent, as a query's snapshot does.
 */
function fakeDatabase(): {
  handle: DatabaseHandle;
  commit: () => void;
  sent: () => number;
  answer: (error?: Error) => void;
} {
  let committed = 1;
  const pending: { version: number; resolve: (row: Record<string, unknown>) => void; reject: (e: Error) => void }[] =
    [];
  let sent = 0;
  const handle: DatabaseHandle = {
    db: {} as Kysely<Database>,
    dialect: 'postgres',
    listen: null,
    poolUse: () => ({ size: 1, total: 1, idle: 1, waiting: 0 }),
    backup: null,
    commitProbe: null,
    copyRows: null,
    readPrepared: (_name, _query) => {
      sent += 1;
      const version = committed;
      return new Promise((resolve, reject) => pending.push({ version, resolve, reject }));
    },
    close: async () => undefined,
  };
  return {
    handle,
    commit: () => (committed += 1),
    sent: () => sent,
    answer: (error) => {
      const read = pending.shift();
      assert.ok(read !== undefined, 'no read was sent');
      if (error !== undefined) read.reject(error);
      else read.resolve({ version: read.version, changed_at: '2026-11-28 12:00:00.000', instance_id: 'epoch' });
    },
  };
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const feedOf = (handle: DatabaseHandle): ContentVersionFeed =>
  new ContentVersionFeed(handle, { pollMs: 60_000, reconnectMs: 60_000 });

describe('ContentVersionFeed.committedNow (PostgreSQL)', () => {
  test("the requests of one turn share one read, sent once the turn's requests are in", async () => {
    const database = fakeDatabase();
    const feed = feedOf(database.handle);
    const first = feed.committedNow();
    const second = feed.committedNow();
    assert.equal(database.sent(), 0, 'not sent while the turn still reads requests');
    // A commit that the turn's last request followed: the shared read sees it.
    database.commit();
    const third = feed.committedNow();
    await turn();
    assert.equal(database.sent(), 1);
    database.answer();
    assert.deepEqual(
      (await Promise.all([first, second, third])).map((stamp) => stamp.version),
      [2, 2, 2],
    );
    await feed.close();
  });

  test('a request during a read waits for the next read, which sees what was committed before it', async () => {
    const database = fakeDatabase();
    const feed = feedOf(database.handle);
    const early = feed.committedNow();
    await turn();
    assert.equal(database.sent(), 1);
    // Committed after the first read was sent: a request that follows it must not get that read.
    database.commit();
    const late = feed.committedNow();
    const later = feed.committedNow();
    await turn();
    assert.equal(database.sent(), 1, 'one read at a time');
    database.answer();
    assert.equal((await early).version, 1);
    await turn();
    assert.equal(database.sent(), 2, 'the next read is sent once the first is back');
    database.answer();
    assert.equal((await late).version, 2);
    assert.equal((await later).version, 2);
    await feed.close();
  });

  test('a failed read fails its requests; the next request makes a new read', async () => {
    const database = fakeDatabase();
    const feed = feedOf(database.handle);
    const failing = feed.committedNow();
    await turn();
    database.answer(new Error('connection lost'));
    await assert.rejects(failing, /connection lost/);
    const next = feed.committedNow();
    await turn();
    assert.equal(database.sent(), 2);
    database.answer();
    assert.equal((await next).version, 1);
    await feed.close();
  });
});
