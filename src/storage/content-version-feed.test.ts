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

const feedOf = (handle: DatabaseHandle, readEveryMs?: number): ContentVersionFeed =>
  new ContentVersionFeed(handle, {
    pollMs: 60_000,
    reconnectMs: 60_000,
    ...(readEveryMs === undefined ? {} : { readEveryMs }),
  });

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

/**
 * The same handle with a listening connection whose fences answer when the test says; `notify`
 * hands the feed a notification, as the listening connection does before a fence's answer.
 */
function listeningDatabase(): ReturnType<typeof fakeDatabase> & {
  fences: () => number;
  passFence: (error?: Error) => void;
  notify: (payload: string) => void;
} {
  const database = fakeDatabase();
  let onNotify: (payload: string) => void = () => undefined;
  const fences: { resolve: () => void; reject: (e: Error) => void }[] = [];
  let sentFences = 0;
  const handle: DatabaseHandle = {
    ...database.handle,
    listen: (_channel, notified) => {
      onNotify = notified;
      return Promise.resolve({
        stop: async () => undefined,
        fence: () => {
          sentFences += 1;
          return new Promise<void>((resolve, reject) => fences.push({ resolve, reject }));
        },
      });
    },
  };
  return {
    ...database,
    handle,
    fences: () => sentFences,
    passFence: (error) => {
      const fence = fences.shift();
      assert.ok(fence !== undefined, 'no fence was sent');
      if (error !== undefined) fence.reject(error);
      else fence.resolve();
    },
    notify: (payload) => onNotify(payload),
  };
}

/** A feed that has read the version once (version 1) and listens. */
async function listeningFeed(
  database: ReturnType<typeof listeningDatabase>,
  readEveryMs?: number,
): Promise<ContentVersionFeed> {
  const feed = feedOf(database.handle, readEveryMs);
  const ready = feed.ready();
  await turn();
  database.answer();
  await ready;
  return feed;
}

describe('ContentVersionFeed.committedNow, listening (PostgreSQL)', () => {
  test("a turn's requests share one fence, no read; a notification heard before the fence answers is in the version", async () => {
    const database = listeningDatabase();
    const feed = await listeningFeed(database);
    const reads = database.sent();
    const first = feed.committedNow();
    const second = feed.committedNow();
    await turn();
    assert.equal(database.fences(), 1);
    database.notify('epoch 5 2026-11-29 05:00:00.000');
    database.passFence();
    assert.deepEqual(
      (await Promise.all([first, second])).map((stamp) => stamp.version),
      [5, 5],
    );
    assert.equal(database.sent(), reads, 'no read of the version');
    await feed.close();
  });

  test('a notification without a version to take is read back, and the fence waits for that read', async () => {
    const database = listeningDatabase();
    const feed = await listeningFeed(database);
    const waiting = feed.committedNow();
    await turn();
    database.commit();
    database.commit();
    database.notify('another-epoch');
    database.passFence();
    let settled = false;
    void waiting.then(() => (settled = true));
    await turn();
    assert.equal(settled, false, 'not before the read the notification started');
    database.answer();
    assert.equal((await waiting).version, 3);
    await feed.close();
  });

  test('a fence that fails is replaced by a read of the version', async () => {
    const database = listeningDatabase();
    const feed = await listeningFeed(database);
    const reads = database.sent();
    const waiting = feed.committedNow();
    await turn();
    database.commit();
    database.passFence(new Error('Connection terminated unexpectedly'));
    await turn();
    assert.equal(database.sent(), reads + 1);
    database.answer();
    assert.equal((await waiting).version, 2);
    await feed.close();
  });

  test('when the last read began longer ago than readEveryMs, the check is a read: it sees what notified nobody', async () => {
    const database = listeningDatabase();
    const feed = await listeningFeed(database, 0);
    const reads = database.sent();
    const waiting = feed.committedNow();
    await turn();
    assert.equal(database.fences(), 0);
    assert.equal(database.sent(), reads + 1);
    database.commit(); // a restore by hand: no notification
    database.answer();
    assert.equal((await waiting).version, 1, 'the read was sent before the commit');
    const next = feed.committedNow();
    await turn();
    database.answer();
    assert.equal((await next).version, 2);
    await feed.close();
  });
});
