import type { ListingApp, ListingVariant } from './app-listing.ts';
import type { AppPart, PartOptions } from './app-part.ts';
import { cutAppPart, makeAppPart, partBytes, partChecksum, releasesFor } from './app-part.ts';
import type { SavedPart } from './app-part.ts';
import type { ByteChunks, GzipPart } from './gzip-parts.ts';
import { assembleGzip, brotliFromGzip, literalPart, textLength } from './gzip-parts.ts';
import { PartCompressor } from './part-compressor.ts';
import { readAhead } from './read-ahead.ts';
import type { RecentWindow } from './rating-aggregate.ts';
import type { VersionStamp } from './version-stamp.ts';
import { reaches, supersedes } from './version-stamp.ts';

/** Which apps are listed at one content version, and the version of each one's last change. */
export interface AppIndex {
  readonly stamp: VersionStamp;
  /** Apps with at least one release, ordered by id. */
  readonly apps: ReadonlyArray<{ readonly id: string; readonly listingVersion: number }>;
}

/** What the engine reads (storage): the index, a few apps at a time, the recent-rating counts, saved parts. */
export interface AppListingReads {
  /** Each call reads in one snapshot of its own: the index and the version it belongs to. */
  index(): Promise<AppIndex>;
  /**
   * The listed data of these apps (those that still have a release), each with its listing
   * version, read in one snapshot: an app's data is always what its listing version names. A
   * release comes as its written text where storage has one in the current format.
   */
  load(
    ids: readonly string[],
    recentSince: string,
  ): Promise<Array<{ readonly listingVersion: number; readonly app: ListingApp }>>;
  /** Per app, how many of its ratings are at or after `recentSince` (apps without any are absent). */
  recentRatingCounts(recentSince: string): Promise<ReadonlyMap<string, number>>;
  /** Parts saved earlier in this format for these apps, whatever their listing version and checksum (the engine checks both). */
  savedParts(ids: readonly string[], format: string): Promise<SavedPart[]>;
}

export interface AppListingSource extends AppListingReads {
  /** Runs `work` with reads that all see one snapshot: the index and the apps agree, whatever commits meanwhile. */
  inOneSnapshot<T>(work: (reads: AppListingReads) => Promise<T>): Promise<T>;
  /**
   * Keeps parts for the next start and for other nodes, each replacing the app's part in this
   * format unless the one saved is newer; parts in other formats stay (a node of another
   * version, during a rolling upgrade, takes them). A failure costs a render later, nothing else.
   */
  saveParts(parts: readonly SavedPart[], format: string): Promise<void>;
}

/** One listing body, assembled from parts: gzip at once, brotli compressed in the background when first asked for. */
export interface AssembledListing {
  readonly stamp: VersionStamp;
  /** The gzip body as the parts' own buffers (nothing copied). */
  readonly gzip: ByteChunks;
  /** Bytes of the JSON text. */
  readonly length: number;
  /** The brotli body once compressed; null until then (gzip serves meanwhile). Asking starts the compression. */
  brotli(): Buffer | null;
  /** The brotli body if it was made; never starts it (a client that does not accept brotli costs no compression). */
  brotliIfMade(): Buffer | null;
}

export interface EngineOptions extends PartOptions {
  /** What shapes a part (partFormat): saved parts in another format are never taken, nor removed (a node of another version may use them). */
  readonly partFormat: string;
  /** Apps read from the database per query batch: bounds each synchronous stretch on SQLite. */
  readonly batchSize: number;
  /** Saved parts read per query at a start: the same bound for the start's reads. */
  readonly savedBatchSize: number;
  /** Bound on the assembled bodies kept (bytes), counting the parts and cuts, which are always kept. */
  readonly maxBytes: number;
  readonly brotliQuality: number;
  /**
   * The share of the gzip body a brotli body must save to be kept (0 to 1; 0: any saving). Below
   * it, the variant is served in gzip: a brotli body is a second full copy of the listing in
   * memory, made again on every change, and on signature-heavy listings it saves a few percent.
   */
  readonly brotliMinSaving: number;
  /** Told when saved parts could not be read or saved (the engine renders instead). */
  readonly onPartsError?: (error: unknown) => void;
  /** Told of each render: `parts` (the apps that changed, read and compressed), `body` (a variant assembled) or `brotli` (a body compressed in brotli), with its duration. */
  readonly onRender?: (what: 'parts' | 'body' | 'brotli', ms: number) => void;
}

interface Current {
  readonly stamp: VersionStamp;
  readonly day: string;
  readonly apps: readonly AppPart[];
}

interface BodyEntry extends AssembledListing {
  readonly key: string;
  /** The recent-rating window's day the body was assembled for. */
  readonly day: string;
  brotliBody: Buffer | null;
  brotliJob: Promise<void> | null;
}

/** What a body holds of its own: the list of the parts' buffers (a reference each), and its brotli body. */
const bodyBytes = (body: BodyEntry): number => 8 * body.gzip.chunks.length + (body.brotliBody?.length ?? 0);

const OPEN = literalPart('[');
const SEPARATOR = literalPart(',');
const CLOSE = literalPart(']');

/**
 * A variant whose brotli body saved too little is not compressed again until its gzip body's size
 * moves by this share: the saving is a property of what the listing holds (signatures, which
 * neither compresses, against text), which one change barely moves.
 */
const BROTLI_RETRY_AFTER_GROWTH = 0.1;

/** How many apps' compressions may be in flight while the next batch is read. */
const COMPRESSIONS_IN_FLIGHT = 16;
/** Deflate streams a render compresses on at once: as many as zlib's thread pool has threads by default. */
const COMPRESSION_LANES = 4;
/**
 * Passes that may see concurrent writes (each reads the index, then the apps that changed, in
 * snapshots of their own); the last one reads everything in one snapshot, which holds back this
 * process's other queries on SQLite while it runs, so it is kept for a stream of writes.
 */
const MAX_PASSES = 5;
/**
 * A render of more apps than this (a first start, an upgrade that changed the part format) saves
 * its parts only after this long, when the bodies that waited for it have been sent. A render of
 * a few (a write) saves them at once: its body goes out within a batch's time anyway, and another
 * node starting meanwhile takes them.
 */
const SAVE_AFTER_PARTS = 64;
const SAVE_AFTER_MS = 1000;

/**
 * The app listings (apps.json, platform/{v}/apps.json, with and without enterprise apps), kept
 * as one compressed part per app. A refresh reads the index (each listed app with the version of
 * its last change) and re-reads, re-serialises and re-compresses only the apps whose version
 * moved; every variant is then assembled from the parts as bytes, never rendered from the whole
 * catalogue. Rendering, reading and compressing run in bounded steps: the event loop stays free.
 */
export class AppListingEngine {
  private readonly parts = new Map<string, AppPart>();
  private partsDay: string | undefined;
  /** Per app, its ratings in the window of `partsDay`: a saved part made with another count is not taken. */
  private recentCounts: ReadonlyMap<string, number> = new Map();
  /** Saves run one batch at a time, after the render that made them. */
  private saving: Promise<void> = Promise.resolve();
  /** Ends the wait before a large render's saves (finishSaving). */
  private wakeSaving: (() => void) | undefined;
  private stopping = false;
  private current: Current | undefined;
  /** The epoch (VersionStamp.instanceId) the parts belong to. */
  private epoch: string | undefined;
  private refreshing: Promise<Current> | undefined;
  private readonly bodies = new Map<string, BodyEntry>();
  private readonly assembling = new Map<string, Promise<BodyEntry>>();
  /** Brotli compressions run one at a time, so they never hold every thread of the pool the parts are compressed in. */
  private brotliQueue: Promise<void> = Promise.resolve();
  /** Per variant whose brotli body saved too little: the size of the gzip body it was judged against. */
  private readonly brotliDeclined = new Map<string, number>();

  constructor(
    private readonly source: AppListingSource,
    private readonly options: EngineOptions,
  ) {}

  /** The variant's body at `wanted` or later (of its epoch), for the recent-rating window given. */
  async body(variant: ListingVariant, window: RecentWindow, wanted: VersionStamp): Promise<AssembledListing> {
    const current = await this.currentAt(window, wanted);
    // Without enterprise-only apps, both bodies are the same: one is kept.
    const enterprise = variant.includeEnterprise || !current.apps.some((app) => app.enterpriseOnly);
    const key = `${variant.exApps === true ? 'appapi' : (variant.platform ?? 'all')}-${enterprise ? 'enterprise' : 'public'}`;
    const known = this.bodies.get(key);
    if (
      known !== undefined &&
      known.stamp.version === current.stamp.version &&
      known.stamp.instanceId === current.stamp.instanceId &&
      known.day === current.day
    ) {
      this.bodies.delete(key);
      this.bodies.set(key, known); // most recently used last
      return known;
    }
    const pending = this.assembling.get(key);
    if (pending !== undefined) {
      const entry = await pending;
      if (reaches(entry.stamp, wanted) && entry.day === current.day) return entry;
    }
    const job = this.assemble(key, variant, current).finally(() => {
      if (this.assembling.get(key) === job) this.assembling.delete(key);
    });
    this.assembling.set(key, job);
    return job;
  }

  /**
   * Resolves once the refresh and the assemblies under way now are over (at once when there are
   * none), whatever their outcome. Work nobody waits for (a start's warming of the website's
   * catalogue) waits for it rather than share the core with the requests that wait for them.
   */
  async inFlightSettled(): Promise<void> {
    await Promise.allSettled([
      ...(this.refreshing === undefined ? [] : [this.refreshing]),
      ...this.assembling.values(),
    ]);
  }

  /** True once the app listings were brought to some version: they can be served from memory. */
  get holding(): boolean {
    return this.current !== undefined;
  }

  /** Bytes held: the apps' parts and cuts, and the assembled bodies. */
  get size(): number {
    let bytes = 0;
    for (const part of this.parts.values()) bytes += partBytes(part);
    for (const body of this.bodies.values()) bytes += bodyBytes(body);
    return bytes;
  }

  private async currentAt(window: RecentWindow, wanted: VersionStamp): Promise<Current> {
    const fresh = (c: Current | undefined): c is Current =>
      c !== undefined && c.day === window.day && reaches(c.stamp, wanted);
    // A refresh that starts after this call reads the database as it is now: it answers, even
    // when the database has gone to another epoch or back since `wanted` was read (a restore).
    let startedHere = false;
    for (;;) {
      if (fresh(this.current)) return this.current;
      if (this.refreshing === undefined) {
        startedHere = true;
        const started = performance.now();
        const job = this.refresh(window).finally(() => {
          this.options.onRender?.('parts', performance.now() - started);
          if (this.refreshing === job) this.refreshing = undefined;
        });
        this.refreshing = job;
      }
      const refreshed = await this.refreshing;
      // A refresh that began before the version asked for (or for another day) does not answer it: go again.
      if (refreshed.day === window.day && (startedHere || reaches(refreshed.stamp, wanted))) return refreshed;
    }
  }

  /**
   * Brings the parts to one content version: every part is then the app as the index's version
   * shows it, so a body never carries an ETag older (or newer) than what it lists.
   */
  private async refresh(window: RecentWindow): Promise<Current> {
    for (let pass = 1; ; pass++) {
      const { index, consistent } =
        pass < MAX_PASSES
          ? await this.pass(this.source, window)
          : await this.source.inOneSnapshot((reads) => this.pass(reads, window));
      // The last pass read in one snapshot: it is consistent whatever it reports.
      if (consistent || pass >= MAX_PASSES) {
        const apps = index.apps.flatMap((app) => this.parts.get(app.id) ?? []);
        const next: Current = { stamp: index.stamp, day: window.day, apps };
        if (supersedes(next.stamp, this.current?.stamp) || next.day !== this.current?.day) this.current = next;
        return next;
      }
    }
  }

  /** Reads the index and re-reads the apps that changed; not consistent when an app read is not the version the index named. */
  private async pass(reads: AppListingReads, window: RecentWindow): Promise<{ index: AppIndex; consistent: boolean }> {
    const index = await reads.index();
    if (index.stamp.instanceId !== this.epoch) this.dropAll(index.stamp.instanceId);
    if (this.partsDay !== window.day) await this.dropPartsWithMovedRatings(reads, window);
    const listed = new Map(index.apps.map((app) => [app.id, app.listingVersion]));
    for (const id of this.parts.keys()) if (!listed.has(id)) this.parts.delete(id);
    const stale = index.apps
      .filter((app) => this.parts.get(app.id)?.listingVersion !== app.listingVersion)
      .map((app) => app.id);
    const unsaved = await this.takeSaved(reads, stale, listed);
    return { index, consistent: await this.reload(reads, unsaved, listed, window) };
  }

  /**
   * Another epoch (a restore, a migration of the data): listing versions count anew in it, so a
   * part or body held from before could match a number and show other content. All goes.
   */
  private dropAll(epoch: string): void {
    this.parts.clear();
    this.bodies.clear();
    this.partsDay = undefined;
    this.epoch = epoch;
  }

  /** When the 90-day window has moved: an app whose recent-rating count changed gets a new text. */
  private async dropPartsWithMovedRatings(reads: AppListingReads, window: RecentWindow): Promise<void> {
    const counts = await reads.recentRatingCounts(window.since);
    for (const [id, part] of this.parts) if ((counts.get(id) ?? 0) !== part.recentRatings) this.parts.delete(id);
    this.recentCounts = counts;
    this.partsDay = window.day;
  }

  /**
   * Takes the saved parts that are what a render would make now (same listing version, same
   * recent-rating count), a batch at a time, the next batch read while this one is checked (on
   * PostgreSQL the server sends it meanwhile). Returns the apps that still need a render.
   */
  private async takeSaved(
    reads: AppListingReads,
    ids: readonly string[],
    listed: ReadonlyMap<string, number>,
  ): Promise<string[]> {
    const taken = new Set<string>();
    const batches = readAhead(ids, this.options.savedBatchSize, (batch) =>
      reads.savedParts(batch, this.options.partFormat),
    );
    for (;;) {
      let step: IteratorResult<{ rows: SavedPart[] }>;
      try {
        step = await batches.next();
      } catch (error) {
        this.options.onPartsError?.(error);
        break;
      }
      if (step.done === true) break;
      for (const saved of step.value.rows) {
        if (
          listed.get(saved.id) !== saved.listingVersion ||
          (this.recentCounts.get(saved.id) ?? 0) !== saved.recentRatings
        )
          continue;
        if (partChecksum(saved, this.options.partFormat) !== saved.checksum) {
          this.options.onPartsError?.(
            new Error(`the saved listing part of ${saved.id} does not match its checksum: rendered again`),
          );
          continue;
        }
        const { checksum: _checksum, ...part } = saved;
        this.parts.set(part.id, part);
        taken.add(part.id);
      }
    }
    return ids.filter((id) => !taken.has(id));
  }

  /**
   * Reads and compresses the apps given, a batch at a time; compressions run while the next batch
   * is read. False when an app read does not match the index (a write landed meanwhile).
   */
  private async reload(
    reads: AppListingReads,
    ids: readonly string[],
    listed: ReadonlyMap<string, number>,
    window: RecentWindow,
  ): Promise<boolean> {
    if (ids.length === 0) return true;
    let consistent = true;
    const inFlight = new Set<Promise<void>>();
    const made: AppPart[] = [];
    const compressor = new PartCompressor(this.options.gzipLevel, Math.min(COMPRESSION_LANES, ids.length));
    const compress = (text: Buffer): Promise<GzipPart> => compressor.compress(text);
    try {
      // The next batch is read while this one is serialised and compressed.
      for await (const { batch, rows: loaded } of readAhead(ids, this.options.batchSize, (batch) =>
        reads.load(batch, window.since),
      )) {
        // Taken off the list as they go: an app read is not held while the compressions of the
        // others are waited for (the render's young-generation collections would copy it).
        const rows = loaded.reverse();
        if (rows.length !== batch.length) consistent = false;
        for (let row = rows.pop(); row !== undefined; row = rows.pop()) {
          const { app, listingVersion } = row;
          if (listed.get(app.id) !== listingVersion) consistent = false;
          const job: Promise<void> = makeAppPart(app, listingVersion, compress).then((part) => {
            this.parts.set(part.id, part);
            made.push(part);
            inFlight.delete(job);
          });
          inFlight.add(job);
          while (inFlight.size >= COMPRESSIONS_IN_FLIGHT) await Promise.race(inFlight);
        }
      }
      await Promise.all(inFlight);
    } finally {
      compressor.close();
    }
    this.save(made);
    return consistent;
  }

  /**
   * Saves the parts still waiting to be saved, now: the store is stopping, and the next start
   * takes them instead of rendering those apps again (a store stopped within a second or two of
   * its first start had saved none).
   */
  async finishSaving(): Promise<void> {
    this.stopping = true;
    this.wakeSaving?.();
    await this.saving;
  }

  /** SAVE_AFTER_MS, unref'd, and cut short by finishSaving: a process that is stopping saves at once. */
  private pauseBeforeSaving(): Promise<void> {
    if (this.stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, SAVE_AFTER_MS).unref();
      this.wakeSaving = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /**
   * Saves the parts in the background, a batch at a time, after whatever is being saved. The
   * first batch waits SAVE_AFTER_MS and each one a turn of the event loop, so the bodies that
   * waited for these parts are sent before any of it: the checksums and, on SQLite, the writes
   * are synchronous work, and a batch run while a body is being sent holds back its writes (a
   * new database's first apps.json took a fifth longer while its 600 apps were saved).
   */
  private save(parts: readonly AppPart[]): void {
    if (parts.length > SAVE_AFTER_PARTS) this.saving = this.saving.then(() => this.pauseBeforeSaving());
    for (let start = 0; start < parts.length; start += this.options.batchSize) {
      const batch = parts.slice(start, start + this.options.batchSize);
      this.saving = this.saving
        .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
        .then(() =>
          this.source.saveParts(
            batch.map((part) => ({ ...part, checksum: partChecksum(part, this.options.partFormat) })),
            this.options.partFormat,
          ),
        )
        .catch((error: unknown) => this.options.onPartsError?.(error));
    }
  }

  private async assemble(key: string, variant: ListingVariant, current: Current): Promise<BodyEntry> {
    const started = performance.now();
    const pieces: GzipPart[] = [OPEN];
    for (const app of current.apps) {
      if (app.enterpriseOnly && !variant.includeEnterprise) continue;
      const kept = releasesFor(app, variant);
      if (kept === 'none') continue;
      if (pieces.length > 1) pieces.push(SEPARATOR);
      pieces.push(kept === 'all' ? app.whole : await cutAppPart(app, kept, this.options));
    }
    pieces.push(CLOSE);
    const gzip = assembleGzip(pieces);
    this.options.onRender?.('body', performance.now() - started);
    const entry: BodyEntry = {
      key,
      day: current.day,
      stamp: current.stamp,
      gzip,
      length: textLength(pieces),
      brotliBody: null,
      brotliJob: null,
      brotli: () => {
        // Only for a body the cache holds: one that was not kept would be compressed for nothing.
        if (entry.brotliJob === null && this.bodies.get(key) === entry && !this.brotliNotWorth(entry))
          entry.brotliJob = this.queueBrotli(entry);
        return entry.brotliBody;
      },
      brotliIfMade: () => entry.brotliBody,
    };
    const previous = this.bodies.get(key);
    // A body made for an older version than the one held is served once but not kept.
    if (previous !== undefined && previous.day === entry.day && previous.stamp.version > entry.stamp.version)
      return entry;
    this.bodies.delete(key);
    this.bodies.set(key, entry);
    this.evict();
    // A variant asked for in brotli before is compressed again at once.
    if (previous !== undefined && previous.brotliJob !== null) entry.brotli();
    return entry;
  }

  /** Waits until every brotli compression queued so far, and any queued meanwhile, has finished. */
  async brotliSettled(): Promise<void> {
    let tail: Promise<void>;
    do {
      tail = this.brotliQueue;
      await tail;
    } while (tail !== this.brotliQueue);
  }

  private queueBrotli(entry: BodyEntry): Promise<void> {
    const job = this.brotliQueue.then(() => this.compressBrotli(entry)).catch(() => undefined);
    this.brotliQueue = job;
    return job;
  }

  private async compressBrotli(entry: BodyEntry): Promise<void> {
    // Replaced or evicted while waiting its turn: nobody will be served it.
    if (this.bodies.get(entry.key) !== entry) return;
    const started = performance.now();
    const body = await brotliFromGzip(entry.gzip, this.options.brotliQuality, entry.length);
    this.options.onRender?.('brotli', performance.now() - started);
    const gzipBytes = entry.gzip.byteLength;
    const saved = gzipBytes - body.length;
    if (saved <= 0 || saved < this.options.brotliMinSaving * gzipBytes) {
      this.brotliDeclined.set(entry.key, gzipBytes);
      return;
    }
    this.brotliDeclined.delete(entry.key);
    if (this.bodies.get(entry.key) === entry) entry.brotliBody = body;
    this.evict();
  }

  /** Whether this variant's brotli body saved too little last time, and its gzip body has kept about the size it had then. */
  private brotliNotWorth(entry: BodyEntry): boolean {
    const judged = this.brotliDeclined.get(entry.key);
    return judged !== undefined && Math.abs(entry.gzip.byteLength - judged) < BROTLI_RETRY_AFTER_GROWTH * judged;
  }

  /**
   * Least recently used bodies go first. The apps' parts and platform cuts stay (a cut goes with
   * its app's next change): dropping cuts would make the next platform request cut every app
   * again, and under a bound too small for one body, every request.
   */
  private evict(): void {
    let size = this.size;
    for (const [key, body] of this.bodies) {
      if (size <= this.options.maxBytes) return;
      this.bodies.delete(key);
      size -= bodyBytes(body);
    }
  }
}
