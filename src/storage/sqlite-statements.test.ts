import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { kyselySqlite } from './sqlite-statements.ts';

/** A query through the adapter, as Kysely runs one: prepare, then `all` with its parameters. */
const rowsOf = (native: BetterSqlite3.Database, query: string, parameters: unknown[] = []): unknown[] =>
  kyselySqlite(native).prepare(query).all(parameters) as unknown[];

/** `check` on a new in-memory database, closed after. */
function inMemory(check: (native: BetterSqlite3.Database) => void): void {
  const native = new BetterSqlite3(':memory:');
  try {
    check(native);
  } finally {
    native.close();
  }
}

describe('the SQLite connection as Kysely drives it', () => {
  test('rows read as arrays are the objects better-sqlite3 makes: columns in order, a repeated name taking the later value, `__proto__` through its setter, any name', () => {
    inMemory((native) => {
      const queries = [
        "select 1 as a, 'x' as b, null as c, 2.5 as d, x'00ff' as e",
        'select 1 as a, 2 as a, 3 as b',
        "select 1 as __proto__, 'x' as b",
        'select 1 as __proto__, 2 as __proto__, 3 as b',
        "select 'v' as version where 1 = 0",
        `select 1 as "a""b", 2 as "x\\y", 3 as "'); throw new Error('ran'); ('", 4 as "\u2028", 5 as "1", 6 as "0", 7 as constructor, 8 as "", 9 as "toString"`,
      ];
      for (const query of queries) {
        const native_ = native.prepare(query).all();
        const adapted = rowsOf(native, query);
        assert.deepEqual(adapted, native_, query);
        for (const [row, expected] of adapted.map((row, i) => [row, native_[i]] as const)) {
          assert.deepEqual(
            Object.keys(row as object),
            Object.keys(expected as object),
            `${query}: the same keys in the same order`,
          );
          assert.equal(Object.getPrototypeOf(row), Object.getPrototypeOf(expected), `${query}: the same prototype`);
        }
      }
      // A blob named __proto__ becomes the row's prototype in both (a Buffer of its own per row).
      const [blobRow] = rowsOf(native, "select x'00ff' as __proto__, 'x' as b");
      const [nativeBlobRow] = native.prepare("select x'00ff' as __proto__, 'x' as b").all();
      assert.deepEqual(Object.getPrototypeOf(blobRow), Object.getPrototypeOf(nativeBlobRow));
      assert.deepEqual(Object.keys(blobRow as object), Object.keys(nativeBlobRow as object));
    });
  });

  test('booleans are bound as 1 and 0; a statement kept by its SQL answers each run with its own parameters; writes and RETURNING', () => {
    inMemory((native) => {
      const db = kyselySqlite(native);
      db.prepare('create table t (id integer primary key, flag integer not null)').run([]);
      const insert = 'insert into t (flag) values (?) returning id, flag';
      assert.deepEqual(db.prepare(insert).all([true]), [{ id: 1, flag: 1 }]);
      assert.deepEqual(db.prepare(insert).all([false]), [{ id: 2, flag: 0 }]);
      const select = 'select id from t where flag = ? order by id';
      assert.deepEqual(db.prepare(select).all([true]), [{ id: 1 }]);
      assert.deepEqual(db.prepare(select).all([false]), [{ id: 2 }]);
      assert.equal(db.prepare('update t set flag = ?').run([true]).changes, 2);
    });
  });

  test('an open iterator does not hold the kept statement: the same query runs meanwhile', () => {
    inMemory((native) => {
      const db = kyselySqlite(native);
      db.prepare('create table t (id integer primary key)').run([]);
      for (let i = 0; i < 3; i++) db.prepare('insert into t default values').run([]);
      const query = 'select id from t order by id';
      const iterator = db.prepare(query).iterate([]) as IterableIterator<unknown>;
      assert.deepEqual(iterator.next().value, { id: 1 });
      assert.deepEqual(db.prepare(query).all([]), [{ id: 1 }, { id: 2 }, { id: 3 }]);
      assert.deepEqual([...iterator], [{ id: 2 }, { id: 3 }]);
    });
  });
});
