/*
 * PostgreSQL's binary COPY format, read (issue 55). `COPY (SELECT ...) TO STDOUT WITH (FORMAT
 * binary)` sends each row as its fields' own bytes: a bytea arrives as itself, where a query's
 * text result sends it as hex that the driver then decodes in JavaScript twice over (the bytes to a
 * string, the string to a Buffer), and integers arrive as four or eight bytes. For the bulk reads
 * of a start (the listing engine's saved parts, 12 MB of deflated bytes at 600 apps) this is three
 * times less work for the store and for the core it shares with the server.
 *
 * Format (PostgreSQL's documentation, "COPY", "Binary Format"): an 11-byte signature, a 32-bit
 * flags word, a 32-bit length and that many bytes of header extension; then each row as a 16-bit
 * field count and, per field, a 32-bit length (-1 for NULL) and its bytes; then a 16-bit -1. All
 * big-endian. Text is in the server's encoding (the caller checks it is UTF8).
 */

/** A column's type as the query returns it (cast it in the SELECT when unsure). */
export type CopyColumn = 'text' | 'int4' | 'int8' | 'bool' | 'bytea';
/** A decoded field: text → string, int4 and int8 → number, bool → boolean, bytea → Buffer. */
export type CopyValue = string | number | boolean | Buffer | null;
/** A value put into the copied query's text in place of `$n`. */
export type CopyParameter = string | number | boolean | null;

const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
const FIXED_HEADER = SIGNATURE.length + 8;
/** Bit 16 of the flags: each row carries an OID first. Never asked for; refused if sent. */
const HAS_OIDS = 1 << 16;

/**
 * Decodes the COPY data as it arrives, in chunks cut anywhere (PostgreSQL sends a row per
 * message, with the header before the first; nothing here relies on that). A chunk may be a view
 * into the driver's buffer, reused after the call: what is kept is copied.
 */
export class BinaryCopyDecoder {
  readonly rows: CopyValue[][] = [];
  private pending: Buffer | null = null;
  private headerRead = false;
  private ended = false;

  constructor(private readonly columns: readonly CopyColumn[]) {}

  push(chunk: Buffer): void {
    let data = chunk;
    if (this.pending !== null) {
      data = Buffer.concat([this.pending, chunk]);
      this.pending = null;
    }
    let offset = this.headerRead ? 0 : this.readHeader(data);
    if (offset < 0) {
      this.pending = Buffer.from(data);
      return;
    }
    while (offset < data.length) {
      if (this.ended) throw new Error('binary COPY: data after the trailer');
      const next = this.readRow(data, offset);
      if (next < 0) break;
      offset = next;
    }
    if (offset < data.length) this.pending = Buffer.from(data.subarray(offset));
  }

  /** Checks that the data ended where a row or the trailer ended. */
  finish(): CopyValue[][] {
    if (!this.ended || this.pending !== null)
      throw new Error('binary COPY: the data ended early, inside a row or before the trailer');
    return this.rows;
  }

  /** The offset after the header, or -1 when it is not all here yet. */
  private readHeader(data: Buffer): number {
    if (data.length < FIXED_HEADER) return -1;
    if (!data.subarray(0, SIGNATURE.length).equals(SIGNATURE)) throw new Error('binary COPY: no signature');
    if ((data.readUInt32BE(SIGNATURE.length) & HAS_OIDS) !== 0) throw new Error('binary COPY: rows with OIDs');
    const end = FIXED_HEADER + data.readUInt32BE(SIGNATURE.length + 4);
    if (data.length < end) return -1;
    this.headerRead = true;
    return end;
  }

  /** Decodes the row (or the trailer) at `start`: the offset after it, or -1 when it is not all here yet. */
  private readRow(data: Buffer, start: number): number {
    if (start + 2 > data.length) return -1;
    const count = data.readInt16BE(start);
    if (count === -1) {
      this.ended = true;
      return start + 2;
    }
    if (count !== this.columns.length)
      throw new Error(`binary COPY: a row of ${count} fields, ${this.columns.length} expected`);
    // The whole row first, so that a row cut between chunks is decoded once, when complete.
    let end = start + 2;
    for (let i = 0; i < count; i++) {
      if (end + 4 > data.length) return -1;
      const length = data.readInt32BE(end);
      end += 4 + Math.max(length, 0);
      if (end > data.length) return -1;
    }
    const row = new Array<CopyValue>(count);
    let at = start + 2;
    for (let i = 0; i < count; i++) {
      const length = data.readInt32BE(at);
      at += 4;
      row[i] = length < 0 ? null : decodeField(this.columns[i] ?? 'bytea', data, at, length);
      at += Math.max(length, 0);
    }
    this.rows.push(row);
    return end;
  }
}

function decodeField(column: CopyColumn, data: Buffer, at: number, length: number): CopyValue {
  const expect = (size: number): void => {
    if (length !== size) throw new Error(`binary COPY: ${length} bytes for a field of type ${column}`);
  };
  switch (column) {
    case 'text':
      return data.toString('utf8', at, at + length);
    case 'int4':
      expect(4);
      return data.readInt32BE(at);
    case 'int8': {
      expect(8);
      const value = data.readBigInt64BE(at);
      if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER))
        throw new Error('binary COPY: an int8 beyond 2^53');
      return Number(value);
    }
    case 'bool':
      expect(1);
      return data[at] !== 0;
    case 'bytea':
      return Buffer.from(data.subarray(at, at + length));
  }
}

/**
 * A value as an SQL literal: COPY takes no parameters, so they are written into its text. Strings
 * in the escape syntax (`E'...'`, backslashes and quotes doubled), which means the same whatever
 * `standard_conforming_strings` says; numbers only when finite.
 */
export function sqlLiteral(value: CopyParameter): string {
  if (value === null) return 'NULL';
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`not a finite number: ${value}`);
    return String(value);
  }
  if (typeof value !== 'string') throw new Error(`no literal for a ${typeof value}`);
  if (value.includes('\0')) throw new Error('a string with a NUL character');
  return `E'${value.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/**
 * The query with `$1`, `$2`... replaced by its values as literals. For the store's own query texts
 * only: a `$n` inside a literal or a dollar-quoted string of the text would be replaced too.
 */
export function withLiterals(query: string, values: readonly CopyParameter[]): string {
  return query.replace(/\$(\d+)(?!\d)/g, (_, index: string) => {
    const position = Number(index) - 1;
    if (position < 0 || position >= values.length) throw new Error(`no value for $${index}`);
    return sqlLiteral(values[position] ?? null);
  });
}
