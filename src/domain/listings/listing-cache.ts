import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { VersionStamp } from './version-stamp.ts';
import { listingEtag, reaches, supersedes } from './version-stamp.ts';

const gzip = promisify(zlib.gzip);
const brotli = promisify(zlib.brotliCompress);

export type Encoding = 'br' | 'gzip' | 'identity';

/** One listing variant at one content version, serialised and compressed once. */
export interface RenderedListing {
  readonly stamp: VersionStamp;
  readonly etag: string;
  readonly identity: Buffer;
  /** Null when compression would not make the body smaller. */
  readonly gzip: Buffer | null;
  readonly br: Buffer | null;
  readonly bytes: number;
}

/**
 * A render reads the data and the version it belongs to in one consistent snapshot (at least
 * `wanted`), and returns either a value to serialise or JSON text it assembled itself.
 */
export type Render = (
  wanted: VersionStamp,
) => Promise<{ stamp: VersionStamp } & ({ body: unknown } | { json: string })>;

export interface ListingCacheOptions {
  /** Upper bound on the bytes of all cached bodies; least recently used variants go first. */
  readonly maxBytes: number;
  readonly brotliQuality?: number;
  readonly gzipLevel?: number;
  /** Told of each render, with the variant and its duration. */
  readonly onRender?: (variant: string, ms: number) => void;
}

/**
 * Rendered, compressed listing bodies keyed by variant (`categories`, `apps`, `platform-30.0.1`…),
 * each kept at the newest content version seen. A request asks for at least the version it read;
 * concurrent requests for the same variant share one render.
 */
export class ListingCache {
  private readonly entries = new Map<string, RenderedListing>();
  private readonly pending = new Map<string, Promise<RenderedListing>>();
  private totalBytes = 0;

  constructor(private readonly options: ListingCacheOptions) {}

  async get(variant: string, wanted: VersionStamp, render: Render): Promise<RenderedListing> {
    const cached = this.entries.get(variant);
    if (cached !== undefined && reaches(cached.stamp, wanted)) {
      this.touch(variant, cached);
      return cached;
    }
    const inFlight = this.pending.get(variant);
    if (inFlight !== undefined) {
      const rendered = await inFlight;
      if (reaches(rendered.stamp, wanted)) return rendered;
    }
    const job = this.renderAndStore(variant, render, wanted).finally(() => {
      if (this.pending.get(variant) === job) this.pending.delete(variant);
    });
    this.pending.set(variant, job);
    return job;
  }

  /** Bytes held by cached bodies (all encodings). */
  get size(): number {
    return this.totalBytes;
  }

  private async renderAndStore(variant: string, render: Render, wanted: VersionStamp): Promise<RenderedListing> {
    const started = performance.now();
    const rendered = await render(wanted);
    const { stamp } = rendered;
    const identity = Buffer.from('json' in rendered ? rendered.json : JSON.stringify(rendered.body), 'utf8');
    const [gz, br] = await Promise.all([
      gzip(identity, { level: this.options.gzipLevel ?? 6 }),
      brotli(identity, {
        params: {
          // Quality 9 costs seconds on a 20 MB apps.json; 5 keeps brotli ahead of gzip in size
          // at a fraction of the time.
          [zlib.constants.BROTLI_PARAM_QUALITY]: this.options.brotliQuality ?? (identity.length > 1024 * 1024 ? 5 : 9),
          [zlib.constants.BROTLI_PARAM_SIZE_HINT]: identity.length,
        },
      }),
    ]);
    this.options.onRender?.(variant, performance.now() - started);
    const smaller = (candidate: Buffer): Buffer | null => (candidate.length < identity.length ? candidate : null);
    const entry: RenderedListing = {
      stamp,
      etag: listingEtag(stamp, variant),
      identity,
      gzip: smaller(gz),
      br: smaller(br),
      bytes: identity.length + gz.length + br.length,
    };
    this.store(variant, entry);
    return entry;
  }

  private store(variant: string, rendered: RenderedListing): void {
    const previous = this.entries.get(variant);
    if (previous !== undefined && !supersedes(rendered.stamp, previous.stamp)) return;
    if (previous !== undefined) {
      this.entries.delete(variant);
      this.totalBytes -= previous.bytes;
    }
    if (rendered.bytes > this.options.maxBytes) return;
    this.entries.set(variant, rendered);
    this.totalBytes += rendered.bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.totalBytes <= this.options.maxBytes) break;
      this.entries.delete(oldest);
      this.totalBytes -= entry.bytes;
    }
  }

  private touch(variant: string, entry: RenderedListing): void {
    // Map order is insertion order: re-inserting makes this the most recently used.
    this.entries.delete(variant);
    this.entries.set(variant, entry);
  }
}
