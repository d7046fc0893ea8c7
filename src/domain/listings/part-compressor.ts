import zlib from 'node:zlib';
import type { GzipPart } from './gzip-parts.ts';
import { PART_DEFLATE } from './gzip-parts.ts';

/** Output a stream hands back per turn through the thread pool: most app parts fit in one. */
const CHUNK_BYTES = 64 * 1024;
/**
 * Output held by a stream before it would wait for a reader: far above any one part, so a part's
 * whole output is buffered by the time its write completes (it is read out then).
 */
const BUFFERED_BYTES = 1 << 30;

interface Lane {
  readonly stream: zlib.DeflateRaw;
  /** The last compression queued on this stream: each waits for the one before. */
  tail: Promise<unknown>;
  queued: number;
}

/**
 * Compresses many parts on a few long-lived raw deflate streams instead of a new stream per part.
 * Each part is one write that ends with a full flush (the streams are made with
 * `flush: Z_FULL_FLUSH`): its output ends byte-aligned and refers to nothing before it, so it is
 * the same kind of segment `compressPart` makes, and segments from any stream concatenate.
 * What this saves per part is zlib's set-up and tear-down (a quarter of a megabyte allocated and
 * freed) and a stream object with its buffers: at 600 apps about a fifth of a first render's
 * compression time (docs/listing-engine.md). The streams work in zlib's thread pool, one part
 * at a time each, so `lanes` parts are compressed at once on a machine with the cores for it.
 * `close` frees them; a compressor is made per render.
 */
export class PartCompressor {
  private readonly lanes: Lane[];
  private closed = false;

  constructor(level: number, lanes: number) {
    // zlib's streams pass their options on to stream.Transform, whose readableHighWaterMark
    // @types/node does not list among zlib's: hence the options as a value of their own.
    const options = {
      level,
      ...PART_DEFLATE,
      flush: zlib.constants.Z_FULL_FLUSH,
      chunkSize: CHUNK_BYTES,
      readableHighWaterMark: BUFFERED_BYTES,
    };
    this.lanes = Array.from({ length: Math.max(1, lanes) }, () => ({
      stream: zlib.createDeflateRaw(options),
      tail: Promise.resolve(),
      queued: 0,
    }));
  }

  /** The text as one segment, with its CRC-32 and length. */
  compress(text: Buffer): Promise<GzipPart> {
    if (this.closed) return Promise.reject(new Error('the part compressor was closed'));
    // No input, no segment: a flush with nothing new gives no output at all.
    if (text.length === 0) return Promise.resolve({ deflated: Buffer.alloc(0), crc: 0, length: 0 });
    const lane = this.lanes.reduce((least, candidate) => (candidate.queued < least.queued ? candidate : least));
    lane.queued += 1;
    const job = lane.tail.then(() => deflateOn(lane.stream, text));
    lane.tail = job.catch(() => undefined);
    return job
      .finally(() => (lane.queued -= 1))
      .then((deflated) => ({ deflated, crc: zlib.crc32(text), length: text.length }));
  }

  /** Frees the streams once what is queued is done. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const lane of this.lanes) void lane.tail.then(() => lane.stream.close());
  }
}

/** One write, its output read out when the write completes: exactly that text's segment. */
function deflateOn(stream: zlib.DeflateRaw, text: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    stream.write(text, (error) => {
      if (error) {
        reject(error);
        return;
      }
      // The stream is read only here, so what it holds is this write's output: buffered whole,
      // since it never reaches the high-water mark. Copied out of zlib's shared output chunk into
      // a buffer of its own size (a slice would hold the whole chunk).
      const output = stream.read() as Buffer | null;
      if (output === null) {
        reject(new Error('the deflate stream gave no output for a part'));
        return;
      }
      const deflated = Buffer.allocUnsafeSlow(output.length);
      output.copy(deflated);
      resolve(deflated);
    });
  });
}
