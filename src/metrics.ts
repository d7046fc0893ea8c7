import { isAppError } from './errors.ts';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The store's metrics, in the Prometheus text format (`GET /metrics`, docs/operations.md): one
 * registry per server, so that several servers in one process (the tests) count apart.
 */
export interface StoreMetrics {
  readonly registry: Registry;
  request(route: string, method: string, status: number, seconds: number): void;
  /**
   * A 304 of the listing fast path: counted, not timed (it takes microseconds, and is the store's
   * most frequent answer). A plain count per address, turned into the request counter when scraped.
   */
  notModified(method: string, url: string): void;
  listingRender(what: string, seconds: number): void;
  /** A publish or registration: its outcome, and the error code of a refusal. */
  upload(kind: 'publish' | 'register', outcome: 'created' | 'updated' | 'refused', code: string): void;
  download(outcome: 'ok' | 'refused', bytes: number, seconds: number): void;
  /** A scheduled mirror sync on this node: done, or failed with its error code. */
  mirrorSync(outcome: 'ok' | 'failed', code: string): void;
}

/** The mirror as the database records it (any node's or the command line's last sync), read when scraped. */
export interface MirrorSnapshot {
  readonly lastSync: {
    readonly kind: 'sync' | 'import';
    readonly at: Date;
    readonly durationMs: number;
    readonly bytes: number;
    readonly releases: Readonly<Record<'taken' | 'unchanged' | 'skipped' | 'refused' | 'removed', number>>;
  } | null;
  /** Every release considered, by what became of it. */
  readonly releases: Readonly<Record<'listed' | 'refused' | 'unavailable', number>>;
}

export interface MetricSources {
  /** Bytes of listing bodies and parts held in memory. */
  readonly cacheBytes: () => number;
  readonly poolUse: () => { size: number; total: number; idle: number; waiting: number } | null;
  /** SQLite: how many times the commit probe was asked (once per turn of the event loop that read the version). */
  readonly commitProbes: () => number;
  /** New authority or CRL files refused (each bad version once): the last good trust stayed in force. */
  readonly trustRefusals: () => number;
  /** Mirror mode only: the last sync and the releases' states. */
  readonly mirror?: () => Promise<MirrorSnapshot>;
}

const SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export function createMetrics(sources: MetricSources): StoreMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'appstore_' });
  // Fast-path 304s by method and address (query included), until the next scrape.
  const notModified = new Map<string, Map<string, number>>();
  let notModifiedAddresses = 0;
  const requests = new Counter({
    name: 'appstore_http_requests_total',
    help: 'HTTP requests answered, by route pattern (for 304s answered before routing: the listing path), method and status.',
    labelNames: ['route', 'method', 'status'],
    registers: [registry],
    collect() {
      for (const [method, counts] of notModified) {
        for (const [url, count] of counts) this.inc({ route: url.split('?')[0] ?? url, method, status: '304' }, count);
      }
      notModified.clear();
      notModifiedAddresses = 0;
    },
  });
  const latency = new Histogram({
    name: 'appstore_http_request_duration_seconds',
    help: 'Time to answer a request, by route pattern and method.',
    labelNames: ['route', 'method'],
    buckets: SECONDS,
    registers: [registry],
  });
  const renders = new Histogram({
    name: 'appstore_listing_render_duration_seconds',
    help: 'Listing renders: apps.json parts and assembled bodies, and the small listings by name.',
    labelNames: ['listing'],
    buckets: SECONDS,
    registers: [registry],
  });
  const uploads = new Counter({
    name: 'appstore_uploads_total',
    help: 'Release publishes and app registrations, by outcome and, for refusals, error code.',
    labelNames: ['kind', 'outcome', 'code'],
    registers: [registry],
  });
  const downloadBytes = new Counter({
    name: 'appstore_download_bytes_total',
    help: 'Bytes of release archives downloaded.',
    registers: [registry],
  });
  const downloads = new Histogram({
    name: 'appstore_download_duration_seconds',
    help: 'Release archive downloads, by outcome.',
    labelNames: ['outcome'],
    buckets: SECONDS,
    registers: [registry],
  });
  new Gauge({
    name: 'appstore_listing_cache_bytes',
    help: 'Bytes of listing bodies and parts held in memory.',
    registers: [registry],
    collect() {
      this.set(sources.cacheBytes());
    },
  });
  new Counter({
    name: 'appstore_commit_probes_total',
    help: "SQLite: checks for other processes' commits (PRAGMA data_version), at most one per turn of the event loop.",
    registers: [registry],
    collect() {
      this.reset();
      this.inc(sources.commitProbes());
    },
  });
  new Counter({
    name: 'appstore_trust_refusals_total',
    help: 'Changed authority or CRL files refused (damaged, cut short, signed by no configured authority, older than the CRL in force); the last good trust stays in force. The log says why.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(sources.trustRefusals());
    },
  });
  new Gauge({
    name: 'appstore_db_pool_connections',
    help: 'PostgreSQL pool: its size, open connections, idle ones, and queries waiting for one (absent on SQLite).',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const use = sources.poolUse();
      if (use === null) return;
      this.set({ state: 'size' }, use.size);
      this.set({ state: 'open' }, use.total);
      this.set({ state: 'idle' }, use.idle);
      this.set({ state: 'waiting' }, use.waiting);
    },
  });
  const mirrorSyncs = new Counter({
    name: 'appstore_mirror_syncs_total',
    help: "Scheduled mirror syncs run by this node, by outcome and, for failures, error code (the command line's are in the audit log).",
    labelNames: ['outcome', 'code'],
    registers: [registry],
  });
  if (sources.mirror !== undefined) mirrorGauges(registry, sources.mirror);
  return {
    registry,
    request(route, method, status, seconds) {
      requests.inc({ route, method, status: String(status) });
      latency.observe({ route, method }, seconds);
    },
    notModified(method, url) {
      let counts = notModified.get(method);
      if (counts === undefined) notModified.set(method, (counts = new Map()));
      const count = counts.get(url);
      if (count !== undefined) counts.set(url, count + 1);
      // Only listing addresses get here, but their queries are the client's: at most 1,000 kept between scrapes.
      else if (notModifiedAddresses < 1000) {
        counts.set(url, 1);
        notModifiedAddresses += 1;
      } else counts.set('other', (counts.get('other') ?? 0) + 1);
    },
    listingRender: (what, seconds) => renders.observe({ listing: what }, seconds),
    upload: (kind, outcome, code) => uploads.inc({ kind, outcome, code }),
    download(outcome, bytes, seconds) {
      downloadBytes.inc(bytes);
      downloads.observe({ outcome }, seconds);
    },
    mirrorSync: (outcome, code) => mirrorSyncs.inc({ outcome, code }),
  };
}

/** The mirror's gauges, from one read of the database per scrape. */
function mirrorGauges(registry: Registry, read: () => Promise<MirrorSnapshot>): void {
  let snapshot: { at: number; value: Promise<MirrorSnapshot> } | null = null;
  const current = (): Promise<MirrorSnapshot> => {
    if (snapshot === null || Date.now() - snapshot.at > 1000) snapshot = { at: Date.now(), value: read() };
    return snapshot.value;
  };
  const last =
    <T>(pick: (sync: NonNullable<MirrorSnapshot['lastSync']>) => T) =>
    async (): Promise<T | null> => {
      const { lastSync } = await current();
      return lastSync === null ? null : pick(lastSync);
    };
  const timestamp = last((sync) => sync);
  new Gauge({
    name: 'appstore_mirror_last_sync_timestamp_seconds',
    help: 'When the last mirror sync or import (kind) was applied, by any node or the command line.',
    labelNames: ['kind'],
    registers: [registry],
    async collect() {
      const sync = await timestamp();
      this.reset();
      if (sync !== null) this.set({ kind: sync.kind }, sync.at.getTime() / 1000);
    },
  });
  const single = (
    name: string,
    help: string,
    value: (sync: NonNullable<MirrorSnapshot['lastSync']>) => number,
  ): void => {
    const pick = last(value);
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        const found = await pick();
        if (found !== null) this.set(found);
      },
    });
  };
  single(
    'appstore_mirror_last_sync_duration_seconds',
    'How long the last mirror sync or import took.',
    (sync) => sync.durationMs / 1000,
  );
  single(
    'appstore_mirror_last_sync_bytes',
    'Archive bytes the last mirror sync downloaded (an import: read from its file).',
    (sync) => sync.bytes,
  );
  const releases = last((sync) => sync.releases);
  new Gauge({
    name: 'appstore_mirror_last_sync_releases',
    help: 'Releases of the last mirror sync or import: taken (downloaded, checked, listed), unchanged, skipped (left out by the policy), refused (not listed: a check failed or the archive was unavailable), removed.',
    labelNames: ['result'],
    registers: [registry],
    async collect() {
      const found = await releases();
      if (found === null) return;
      for (const [result, count] of Object.entries(found)) this.set({ result }, count);
    },
  });
  new Gauge({
    name: 'appstore_mirror_releases',
    help: 'Upstream releases the mirror considered, by status: listed, refused (a check failed) or unavailable (the archive could not be downloaded); appstore mirror status gives the reasons.',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      for (const [status, count] of Object.entries((await current()).releases)) this.set({ status }, count);
    },
  });
}

/**
 * Metrics nobody can scrape (neither APPSTORE_METRICS_PORT nor APPSTORE_METRICS_TOKEN set, the
 * default): nothing is counted, so requests do no work for them and no process metrics are sampled.
 */
export function unscrapedMetrics(): StoreMetrics {
  const ignore = (): void => undefined;
  return {
    registry: new Registry(),
    request: ignore,
    notModified: ignore,
    listingRender: ignore,
    upload: ignore,
    download: ignore,
    mirrorSync: ignore,
  };
}

/** Runs a publish or a registration and counts its outcome (a refusal by its error code). */
export async function countedUpload<T extends { created: boolean }>(
  metrics: StoreMetrics,
  kind: 'publish' | 'register',
  work: () => Promise<T>,
): Promise<T> {
  try {
    const result = await work();
    metrics.upload(kind, result.created ? 'created' : 'updated', '');
    return result;
  } catch (error) {
    metrics.upload(kind, 'refused', isAppError(error) ? error.code : 'internal_error');
    throw error;
  }
}
