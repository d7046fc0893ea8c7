import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import type { DatabaseHandle } from '../../src/storage/database.ts';
import { openDatabase } from '../../src/storage/database.ts';
import type { CopyColumn } from '../../src/storage/postgres-binary-copy.ts';
import { DIALECT, POSTGRES_URL, createTestDatabase } from '../helpers/test-database.ts';
import type { TestDatabase } from '../helpers/test-database.ts';

/*
 * What the store uses of PostgreSQL beyond queries (issue 55), against a real server: rows read
 * through binary COPY (the values that come back, failures, a server database whose encoding is
 * not UTF8; SQLite's handle offers none), and the listening connection's fence.
 */

const HOSTILE = "it's \\' ; drop table copy_victim; -- zoë ✓ $1 E'x'";
const QUERY =
  "select $1::text, $2::int4, $3::int8, $4::bool, decode($5, 'hex'), $6::text, ''::text, ''::bytea, $7::int4 where $8::text = 'yes'";
const VALUES = [HOSTILE, -5, 2 ** 40, true, '00ff0a', null, 2147483647, 'yes'];
const COLUMNS: CopyColumn[] = ['text', 'int4', 'int8', 'bool', 'bytea', 'text', 'text', 'bytea', 'int4'];
const EXPECTED = [[HOSTILE, -5, 2 ** 40, true, Buffer.from([0, 255, 10]), null, '', Buffer.alloc(0), 2147483647]];

const onPostgres = { skip: DIALECT !== 'postgres' && 'PostgreSQL only (APPSTORE_TEST_DATABASE_URL)' };

describe(`PostgreSQL's COPY and LISTEN as the store uses them (${DIALECT})`, () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  before(async () => {
    database = await createTestDatabase();
    handle = await database.open({ migrate: false });
  });
  after(() => database.dispose());

  describe('rows through binary COPY', () => {
    test('SQLite offers none: its rows are built in its own process', { skip: DIALECT === 'postgres' }, () => {
      assert.equal(handle.copyRows, null);
    });

    test(
      'every column type, NULLs, empty values, and values written into the query as literals',
      onPostgres,
      async () => {
        const copyRows = handle.copyRows;
        assert.ok(copyRows !== null);
        await sql`create table copy_victim (id int4)`.execute(handle.db);
        assert.deepEqual(await copyRows(QUERY, VALUES, COLUMNS), EXPECTED);
        assert.deepEqual(await copyRows(QUERY, [...VALUES.slice(0, 7), 'no'], COLUMNS), []);
        // The hostile string was a value, not SQL: the table it names is still there.
        const { rows } = await sql<{ n: number }>`
          select count(*)::int as n from pg_tables where tablename = 'copy_victim'`.execute(handle.db);
        assert.equal(rows[0]?.n, 1);
      },
    );

    test('a query that fails, or rows not of the types named, reject; the next read works', onPostgres, async () => {
      const copyRows = handle.copyRows;
      assert.ok(copyRows !== null);
      await assert.rejects(copyRows('select 1 / $1::int4', [0], ['int4']), /division by zero/);
      await assert.rejects(copyRows("select 'hello'", [], ['int4']), /5 bytes for a field of type int4/);
      await assert.rejects(copyRows('select 1, 2', [], ['int4']), /a row of 2 fields, 1 expected/);
      assert.deepEqual(await copyRows('select 7::int4', [], ['int4']), [[7]]);
    });

    test(
      'on a server database whose encoding is not UTF8, the same values come through a query',
      onPostgres,
      async () => {
        const name = `test_ascii_${randomBytes(6).toString('hex')}`;
        const admin = new pg.Client({ connectionString: POSTGRES_URL });
        await admin.connect();
        await admin.query(
          `create database ${name} encoding 'SQL_ASCII' lc_collate 'C' lc_ctype 'C' template template0`,
        );
        const url = new URL(POSTGRES_URL ?? '');
        url.pathname = `/${name}`;
        const ascii = openDatabase({ kind: 'postgres', url: url.toString() }, { poolSize: 2 });
        try {
          const copyRows = ascii.copyRows;
          assert.ok(copyRows !== null);
          const plain = VALUES.map((value) => (value === HOSTILE ? "it's \\' ; -- $1 E'x'" : value));
          const expected = [[plain[0], ...(EXPECTED[0] ?? []).slice(1)]];
          assert.deepEqual(await copyRows(QUERY, plain, COLUMNS), expected);
          await assert.rejects(copyRows('select 1 / $1::int4', [0], ['int4']), /division by zero/);
          assert.deepEqual(await copyRows('select 7::int4', [], ['int4']), [[7]]);
        } finally {
          await ascii.close();
          await admin.query(`drop database if exists ${name} with (force)`);
          await admin.end();
        }
      },
    );
  });

  /*
   * The listening connection's fence (issue 55), against a real server: what a GET waits for on
   * PostgreSQL, in place of a read of the content version. Once it resolves, every notification of
   * a commit acknowledged before it was sent must have been handed over. Checked with nothing else
   * to wait for: the fence is sent in the same turn as the commit's acknowledgement is taken, so
   * the notification can only have arrived first if the server sent it before answering the fence.
   */
  describe("the listening connection's fence", () => {
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
});
