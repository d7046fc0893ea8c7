import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { remember } from '../bounded-map.ts';

/**
 * A piece of a listing compressed on its own: a raw deflate segment that ends with a full flush
 * (byte-aligned, no final block, no back-reference into it from what follows), with the CRC-32
 * and length of the text it holds. Segments concatenate into one deflate stream, so a gzip body
 * is assembled from parts without compressing anything again (RFC 1951 §3.2.3, RFC 1952 §2.3).
 */
export interface GzipPart {
  readonly deflated: Buffer;
  readonly crc: number;
  /** Bytes of the uncompressed text. */
  readonly length: number;
}

const deflateRaw = promisify(zlib.deflateRaw);

/**
 * How parts are deflated, besides the level: zlib's largest hash table and block buffer
 * (memLevel 9) and a 16 KiB window. On apps.json, where half the bytes are base64 signatures
 * that no match shortens, the largest hash table spends far less time on false candidates and
 * the larger blocks write fewer Huffman tables: at 600 apps, 195 ms instead of 336 for the whole
 * text at level 6, and 0.2 % smaller. A window of 16 KiB still reaches several releases back,
 * where the text an app's releases share is (docs/listing-engine.md has the measurements).
 * Any inflater reads it: a window is at most 32 KiB.
 */
export const PART_DEFLATE = { memLevel: 9, windowBits: 14 } as const;

/** Compresses off the main thread (zlib's thread pool). */
export async function compressPart(text: Buffer, level: number): Promise<GzipPart> {
  const output = await deflateRaw(text, { level, ...PART_DEFLATE, finishFlush: zlib.constants.Z_FULL_FLUSH });
  // An output that fits in one of zlib's 16 KiB chunks comes back as a slice of it: kept as it
  // is, a 3 KB part would hold all 16 KiB (at 3,000 apps, over 100 MiB no count showed).
  const deflated = output.byteLength < output.buffer.byteLength ? Buffer.from(output) : output;
  return { deflated, crc: zlib.crc32(text), length: text.length };
}

/** A part for a few bytes of fixed text (brackets, commas): stored, not worth compressing. */
export function literalPart(text: string): GzipPart {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length > 0xffff) throw new Error('a literal part holds at most 65535 bytes');
  // A stored block (BFINAL 0, BTYPE 00) is byte-aligned: header byte, LEN, NLEN, the bytes.
  const header = Buffer.from([
    0x00,
    bytes.length & 0xff,
    bytes.length >> 8,
    ~bytes.length & 0xff,
    (~bytes.length >> 8) & 0xff,
  ]);
  return { deflated: Buffer.concat([header, bytes]), crc: zlib.crc32(bytes), length: bytes.length };
}

// CRC-32 of a concatenation from the CRCs of its pieces: crc(A·B) = crc(A)·x^(8·|B|) + crc(B)
// in GF(2)[x] modulo the CRC polynomial, with bits reflected as in zlib's CRC-32.
const POLYNOMIAL = 0xedb88320;

function multiplyModP(a: number, b: number): number {
  if (a === 0) return 0;
  let product = 0;
  let m = 0x80000000;
  for (;;) {
    if ((a & m) !== 0) {
      product ^= b;
      if ((a & (m - 1)) === 0) break;
    }
    m >>>= 1;
    b = (b & 1) !== 0 ? (b >>> 1) ^ POLYNOMIAL : b >>> 1;
  }
  return product >>> 0;
}

/** X_TO_2_TO_THE[k] is x^(2^k) modulo the polynomial. */
const X_TO_2_TO_THE: number[] = (() => {
  const table = [0x40000000]; // x^1
  for (let k = 1; k < 32; k++) table.push(multiplyModP(table[k - 1] ?? 0, table[k - 1] ?? 0));
  return table;
})();

/** x^(n·2^k) modulo the polynomial. */
function xPowerModP(n: number, k: number): number {
  let power = 0x80000000; // x^0
  while (n > 0) {
    if (n % 2 === 1) power = multiplyModP(X_TO_2_TO_THE[k % 32] ?? 0, power);
    n = Math.floor(n / 2);
    k += 1;
  }
  return power;
}

/**
 * x^(8·length) modulo the polynomial, by length: what shifts a CRC past that many bytes. An
 * assembly combines one CRC per part, and the same parts make every body until they change, so
 * each length's shift is computed once (about a microsecond: at 3,000 apps, 6 of an assembly's
 * milliseconds) and then looked up. Bounded: cleared when full (a few hundred kilobytes).
 */
const shifts = new Map<number, number>();
const SHIFTS_KEPT = 1 << 15;

function shiftPast(length: number): number {
  return shifts.get(length) ?? remember(shifts, length, xPowerModP(length, 3), SHIFTS_KEPT);
}

export function combineCrc(first: number, second: number, secondLength: number): number {
  return (multiplyModP(shiftPast(secondLength), first) ^ second) >>> 0;
}

/** gzip member header: deflate, no name or time, unknown OS (RFC 1952 §2.3). */
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff]);
/** An empty final block with fixed codes: BFINAL 1, BTYPE 01, end-of-block. */
const FINAL_BLOCK = Buffer.from([0x03, 0x00]);

/**
 * A body as the buffers that make it, in order: a listing is sent as its parts' own buffers, so
 * assembling one copies nothing and holds nothing but the list.
 */
export interface ByteChunks {
  readonly chunks: readonly Buffer[];
  readonly byteLength: number;
}

export const chunksOf = (buffer: Buffer): ByteChunks => ({ chunks: [buffer], byteLength: buffer.length });

/** One gzip body from parts, in order: header, the segments, a final block, CRC-32 and size. */
export function assembleGzip(parts: readonly GzipPart[]): ByteChunks {
  let crc = 0;
  let length = 0;
  const chunks: Buffer[] = [GZIP_HEADER];
  let byteLength = GZIP_HEADER.length;
  for (const part of parts) {
    crc = combineCrc(crc, part.crc, part.length);
    length += part.length;
    chunks.push(part.deflated);
    byteLength += part.deflated.length;
  }
  const trailer = Buffer.allocUnsafe(FINAL_BLOCK.length + 8);
  FINAL_BLOCK.copy(trailer, 0);
  trailer.writeUInt32LE(crc, FINAL_BLOCK.length);
  // ISIZE is the length modulo 2^32.
  trailer.writeUInt32LE(length % 0x100000000, FINAL_BLOCK.length + 4);
  chunks.push(trailer);
  return { chunks, byteLength: byteLength + trailer.length };
}

/** The text of a gzip body, decompressed as a stream from its chunks (nothing joined). */
export function gunzipStream(body: ByteChunks): Readable {
  return Readable.from(body.chunks).pipe(zlib.createGunzip());
}

/** A gzip body compressed again as brotli, streaming: the text is never held whole. */
export async function brotliFromGzip(body: ByteChunks, quality: number, textLength: number): Promise<Buffer> {
  const out: Buffer[] = [];
  const brotli = zlib.createBrotliCompress({
    params: { [zlib.constants.BROTLI_PARAM_QUALITY]: quality, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: textLength },
  });
  await pipeline(Readable.from(body.chunks), zlib.createGunzip(), brotli, async (compressed: AsyncIterable<Buffer>) => {
    for await (const chunk of compressed) out.push(chunk);
  });
  return Buffer.concat(out);
}

/** The uncompressed length of an assembled body. */
export function textLength(parts: readonly GzipPart[]): number {
  return parts.reduce((sum, part) => sum + part.length, 0);
}

const inflateRaw = promisify(zlib.inflateRaw);

/** The text of one part, decompressed off the main thread (to cut a part into smaller ones). */
export async function partText(part: GzipPart): Promise<Buffer> {
  return inflateRaw(part.deflated, { finishFlush: zlib.constants.Z_SYNC_FLUSH });
}
