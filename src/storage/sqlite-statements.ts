import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';
import { remember } from '../domain/bounded-map.ts';

/** Prepared statements kept per connection, by their SQL: cleared when full. */
const STATEMENTS_KEPT = 512;

/**
 * The connection as Kysely drives it. SQLite cannot bind JavaScript booleans; they are stored as
 * 1/0, like SQLite's TRUE and FALSE. Kysely prepares every query it runs; the statements are kept
 * by their SQL, so a query run again (a listing render runs the same dozen per batch of apps) is
 * not parsed and planned again. `all` and `run` finish before they return, so a kept statement is
 * never busy when taken again; an iterator stays open across turns of the event loop, so
 * `iterate` gets a statement of its own. Rows are read as arrays (`keptStatement`).
 */
export function kyselySqlite(native: BetterSqlite3.Database): SqliteDatabase {
  const convert = (parameters: ReadonlyArray<unknown>): unknown[] =>
    parameters.map((value) => (typeof value === 'boolean' ? (value ? 1 : 0) : value));
  const kept = new Map<string, KeptStatement>();
  const statementFor = (query: string): KeptStatement =>
    kept.get(query) ?? remember(kept, query, keptStatement(native.prepare(query)), STATEMENTS_KEPT);
  return {
    close: () => native.close(),
    prepare(query: string): SqliteStatement {
      const { statement, toRow } = statementFor(query);
      return {
        reader: statement.reader,
        all:
          toRow === null
            ? (parameters) => statement.all(convert(parameters))
            : (parameters) => (statement.all(convert(parameters)) as unknown[][]).map(toRow),
        run: (parameters) => statement.run(convert(parameters)),
        iterate: (parameters) => native.prepare(query).iterate(convert(parameters)),
      };
    },
  };
}

interface KeptStatement {
  readonly statement: BetterSqlite3.Statement;
  /** Makes a row object of a raw row, for a statement that returns rows; null for one that does not. */
  readonly toRow: ((values: unknown[]) => Record<string, unknown>) | null;
}

/**
 * A statement whose rows are read as arrays and made objects here: better-sqlite3 makes each row
 * object in C++, a property at a time, which took two fifths of the time to read a render's
 * release rows (19,800 rows of 16 columns: about 100 ms against 60 ms this way). The objects are
 * the same: a property per column in order, a later column of the same name winning (and a column
 * named `__proto__` goes through the prototype's setter in both).
 */
function keptStatement(statement: BetterSqlite3.Statement): KeptStatement {
  if (!statement.reader) return { statement, toRow: null };
  const names = statement.columns().map((column) => column.name);
  statement.raw(true);
  return { statement, toRow: rowMaker(names) };
}

type RowMaker = (values: unknown[]) => Record<string, unknown>;

/**
 * The function that makes a statement's row objects: one object literal with a property per
 * column, compiled once per statement. Every row of a statement then has one shape, made in one
 * allocation; setting the properties by name in a loop made V8 look each one up in a megamorphic
 * cache (a render's 80,000 rows: about 5 % of its instructions, by callgrind). The names are
 * written as JSON string literals, which JavaScript reads back as the same strings whatever they
 * hold. A literal names `__proto__` once at most; a statement with two such columns (only a
 * query written to do so) is made property by property.
 */
export function rowMaker(names: readonly string[]): RowMaker {
  if (names.filter((name) => name === '__proto__').length > 1) {
    return (values) => {
      const row: Record<string, unknown> = {};
      for (let index = 0; index < names.length; index++) row[names[index] as string] = values[index];
      return row;
    };
  }
  const properties = names.map((name, index) => `${JSON.stringify(name)}: values[${index}]`);
  return new Function('values', `'use strict'; return { ${properties.join(', ')} };`) as RowMaker;
}
