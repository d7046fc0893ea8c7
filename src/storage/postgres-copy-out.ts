import type pg from 'pg';
import { BinaryCopyDecoder, withLiterals } from './postgres-binary-copy.ts';
import type { CopyColumn, CopyParameter, CopyValue } from './postgres-binary-copy.ts';

/**
 * One `COPY (query) TO STDOUT WITH (FORMAT binary)` on a connection of the pool, decoded as it
 * arrives. node-postgres hands a query object it does not know (a "submittable") the protocol's
 * messages: the COPY data, then an error or the end. Rejects on an error at once (the
 * connection is then dropped, not given back: see binaryCopyReader).
 */
class CopyOut {
  readonly done: Promise<CopyValue[][]>;
  private settle!: { resolve(rows: CopyValue[][]): void; reject(error: Error): void };
  private failure: Error | null = null;
  private readonly decoder: BinaryCopyDecoder;

  constructor(
    private readonly text: string,
    columns: readonly CopyColumn[],
  ) {
    this.decoder = new BinaryCopyDecoder(columns);
    this.done = new Promise((resolve, reject) => (this.settle = { resolve, reject }));
  }

  submit(connection: { query(text: string): void }): void {
    connection.query(this.text);
  }

  handleCopyData(message: { chunk: Buffer }): void {
    if (this.failure !== null) return;
    try {
      this.decoder.push(message.chunk);
    } catch (error) {
      this.fail(error as Error);
    }
  }

  handleError(error: Error): void {
    this.fail(error);
  }

  handleReadyForQuery(): void {
    if (this.failure !== null) return;
    try {
      this.settle.resolve(this.decoder.finish());
    } catch (error) {
      this.fail(error as Error);
    }
  }

  // A COPY sends none of these; a query text that is not one would.
  handleRowDescription(): void {
    this.fail(new Error('not a COPY: the query returned rows'));
  }
  handleDataRow(): void {}
  handleCommandComplete(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyInResponse(): void {
    this.fail(new Error('not a COPY TO'));
  }

  private fail(error: Error): void {
    if (this.failure !== null) return;
    this.failure = error;
    this.settle.reject(error);
  }
}

/** A read of rows through binary COPY (DatabaseHandle.copyRows). */
export type CopyRows = (
  query: string,
  values: readonly CopyParameter[],
  columns: readonly CopyColumn[],
) => Promise<CopyValue[][]>;

/**
 * The rows of a query (a SELECT with `$n` parameters) as arrays in the order of `columns`, read
 * through binary COPY on a connection of `pool`. On a server whose encoding is not UTF8 (binary
 * COPY sends text in the server's encoding) the same SELECT runs as a query instead, with the
 * same values out. The encoding is asked once, and again after a failure.
 */
export function binaryCopyReader(pool: pg.Pool): CopyRows {
  let serverIsUtf8: Promise<boolean> | null = null;
  return async (query, values, columns) => {
    const client = await pool.connect();
    let failure: Error | undefined;
    try {
      serverIsUtf8 ??= client
        .query<{ server_encoding: string }>('show server_encoding')
        .then((result) => result.rows[0]?.server_encoding === 'UTF8');
      if (!(await serverIsUtf8)) {
        const result = await client.query<unknown[]>({ text: query, values: [...values], rowMode: 'array' });
        return result.rows.map((row) => row.map((value, i) => fromTextResult(columns[i], value)));
      }
      const copy = new CopyOut(`COPY (${withLiterals(query, values)}) TO STDOUT WITH (FORMAT binary)`, columns);
      client.query(copy);
      return await copy.done;
    } catch (error) {
      serverIsUtf8 = null;
      failure = error as Error;
      throw error;
    } finally {
      // A connection whose COPY failed may still be receiving it: dropped, not reused.
      client.release(failure);
    }
  };
}

/** A query's value as binary COPY gives it: node-postgres returns an int8 as a string. */
function fromTextResult(column: CopyColumn | undefined, value: unknown): CopyValue {
  if (value === null || value === undefined) return null;
  if (column === 'int8' || column === 'int4') return Number(value);
  return value as CopyValue;
}
