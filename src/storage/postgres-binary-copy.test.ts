import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BinaryCopyDecoder, sqlLiteral, withLiterals } from './postgres-binary-copy.ts';
import type { CopyColumn, CopyValue } from './postgres-binary-copy.ts';

/** Bytes as PostgreSQL writes them (its documentation's layout), built by hand. */
const int16 = (n: number): Buffer => {
  const b = Buffer.alloc(2);
  b.writeInt16BE(n);
  return b;
};
const int32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};
const field = (bytes: Buffer | null): Buffer =>
  bytes === null ? int32(-1) : Buffer.concat([int32(bytes.length), bytes]);
const header = (flags = 0, extension = Buffer.alloc(0)): Buffer =>
  Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), int32(flags), int32(extension.length), extension]);
const row = (...fields: (Buffer | null)[]): Buffer => Buffer.concat([int16(fields.length), ...fields.map(field)]);
const TRAILER = int16(-1);

const COLUMNS: CopyColumn[] = ['text', 'int4', 'int8', 'bool', 'bytea'];
const int8 = (n: bigint): Buffer => {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(n);
  return b;
};
const STREAM = Buffer.concat([
  header(0, Buffer.from('ext')),
  row(Buffer.from('zoë ✓'), int32(-7), int8(2n ** 40n), Buffer.from([1]), Buffer.from([0, 255, 10])),
  row(null, null, null, null, null),
  row(Buffer.alloc(0), int32(2147483647), int8(-(2n ** 53n) + 1n), Buffer.from([0]), Buffer.alloc(0)),
  TRAILER,
]);
const EXPECTED: CopyValue[][] = [
  ['zoë ✓', -7, 2 ** 40, true, Buffer.from([0, 255, 10])],
  [null, null, null, null, null],
  ['', 2147483647, -(2 ** 53) + 1, false, Buffer.alloc(0)],
];

const decode = (chunks: Buffer[], columns = COLUMNS): CopyValue[][] => {
  const decoder = new BinaryCopyDecoder(columns);
  for (const chunk of chunks) decoder.push(chunk);
  return decoder.finish();
};

describe('binary COPY decoding', () => {
  test('every column type, NULLs and empty values, the header extension skipped', () => {
    assert.deepEqual(decode([STREAM]), EXPECTED);
  });

  test('the same rows whichever way the data is cut into chunks', () => {
    for (let cut = 1; cut < STREAM.length; cut++)
      assert.deepEqual(decode([STREAM.subarray(0, cut), STREAM.subarray(cut)]), EXPECTED, `cut at ${cut}`);
    const bytes = [...STREAM].map((byte) => Buffer.from([byte]));
    assert.deepEqual(decode(bytes), EXPECTED);
  });

  test('a chunk reused by the driver after the call does not change the rows kept', () => {
    const chunk = Buffer.from(STREAM);
    const decoder = new BinaryCopyDecoder(COLUMNS);
    decoder.push(chunk.subarray(0, 40));
    decoder.push(chunk.subarray(40));
    chunk.fill(0);
    assert.deepEqual(decoder.finish(), EXPECTED);
  });

  test('no rows: the header and the trailer only', () => {
    assert.deepEqual(decode([Buffer.concat([header(), TRAILER])]), []);
  });

  test('data that is not what was asked for is refused, with what was wrong', () => {
    const refused = (chunks: Buffer[], message: RegExp, columns = COLUMNS) =>
      assert.throws(() => decode(chunks, columns), message);
    refused([Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\x01', 'latin1'), int32(0), int32(0)])], /no signature/);
    refused([Buffer.concat([header(1 << 16), TRAILER])], /OIDs/);
    refused([Buffer.concat([header(), row(Buffer.from('a')), TRAILER])], /a row of 1 fields, 5 expected/);
    refused([Buffer.concat([header(), row(Buffer.from([1, 2])), TRAILER])], /2 bytes for a field of type int4/, [
      'int4',
    ]);
    refused([Buffer.concat([header(), row(Buffer.from([1, 2])), TRAILER])], /2 bytes for a field of type bool/, [
      'bool',
    ]);
    refused([Buffer.concat([header(), row(int8(2n ** 53n)), TRAILER])], /beyond 2\^53/, ['int8']);
    refused([Buffer.concat([header(), row(Buffer.from('a'))])], /ended early/, ['text']);
    refused([STREAM.subarray(0, STREAM.length - 3)], /ended early/);
    refused([Buffer.concat([header(), TRAILER, row(Buffer.from('a'))])], /after the trailer/, ['text']);
  });
});

describe('literals for a COPY, which takes no parameters', () => {
  test('strings in the escape syntax: quotes and backslashes doubled, whatever standard_conforming_strings says', () => {
    assert.equal(sqlLiteral("it's"), "E'it''s'");
    assert.equal(sqlLiteral('a\\b'), "E'a\\\\b'");
    assert.equal(sqlLiteral("\\'; drop table apps; --"), "E'\\\\''; drop table apps; --'");
    assert.equal(sqlLiteral('zoë ✓ $1'), "E'zoë ✓ $1'");
    assert.equal(sqlLiteral(''), "E''");
  });

  test('numbers, booleans and NULL as themselves; what has no literal is refused', () => {
    assert.equal(sqlLiteral(42), '42');
    assert.equal(sqlLiteral(-1.5), '-1.5');
    assert.equal(sqlLiteral(true), 'TRUE');
    assert.equal(sqlLiteral(false), 'FALSE');
    assert.equal(sqlLiteral(null), 'NULL');
    assert.throws(() => sqlLiteral(Number.NaN), /not a finite number/);
    assert.throws(() => sqlLiteral(Number.POSITIVE_INFINITY), /not a finite number/);
    assert.throws(() => sqlLiteral('a\0b'), /NUL/);
    assert.throws(() => sqlLiteral({} as unknown as string), /no literal for a object/);
  });

  test('each $n replaced by its value, $1 and $10 told apart, a $n without a value refused', () => {
    const values = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'];
    assert.equal(
      withLiterals('select $1, $10, $2 where x in ($3,$1)', values),
      "select E'a', E'j', E'b' where x in (E'c',E'a')",
    );
    assert.equal(withLiterals('select $1', ['$2']), "select E'$2'");
    assert.throws(() => withLiterals('select $2', ['a']), /no value for \$2/);
    assert.throws(() => withLiterals('select $0', ['a']), /no value for \$0/);
  });
});
