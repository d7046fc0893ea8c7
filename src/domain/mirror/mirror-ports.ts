import type { ArchiveStorage } from '../archives/archive-storage.ts';
import type { AuditEntry } from '../audit/audit.ts';
import type { Category, PlatformRelease } from '../catalog/catalog.ts';
import type { Trust } from '../certificates/trust.ts';
import type { DiscoverEntry } from '../discover/discover-document.ts';
import type { MirrorPolicy } from './mirror-policy.ts';
import type { AppIcon } from '../releases/app-icon.ts';
import type { UpstreamApp, UpstreamRelease } from './upstream-listing.ts';

/**
 * Mirror mode's ports and records (docs/mirror.md): what a sync reads (the upstream, where
 * archives are stored), what it keeps (the records of releases considered, the store), and what
 * it reports. The use cases are sync-mirror.ts, plan-mirror.ts, import-mirror.ts and export-mirror.ts; the adapters
 * (downloads/upstream-client.ts, archives/*-storage.ts, storage/repositories/mirror.repository.ts)
 * implement these.
 */
/** The upstream documents a sync reads, by their file name under the API root. */
export const DOCUMENTS = ['categories', 'platforms', 'apps', 'appapi_apps', 'discover'] as const;
export type DocumentName = (typeof DOCUMENTS)[number];

export type DocumentAnswer =
  { readonly kind: 'unchanged' } | { readonly kind: 'fetched'; readonly body: string; readonly etag: string | null };

/** The upstream store, reached through the SSRF-guarded client and its limits. */
export interface Upstream {
  readonly url: string;
  /** GET {url}/{name}.json with If-None-Match when an ETag is known. */
  document(name: DocumentName, etag: string | null): Promise<DocumentAnswer>;
  /** An archive's bytes, within the store's size and time limits. */
  archive(url: string): Promise<Buffer>;
  /** The archive's size by HEAD (null when the server does not say). */
  archiveSize(url: string): Promise<number | null>;
  /**
   * Releases the source keeps that its documents no longer hold (an export file: the connected
   * store's kept releases), as `{apps: [...], appapi_apps: [...]}` in the upstream's format; null
   * or absent for an upstream store.
   */
  kept?(): Promise<string | null>;
}

/** The upstream's documents may be large (the original's apps.json is tens of MiB), never unbounded. */
export const MAX_DOCUMENT_BYTES = 256 * 1024 * 1024;

export type ReleaseStatus = 'listed' | 'refused' | 'unavailable';

/** What the store knows of one upstream release it considered. */
export interface MirroredRelease {
  readonly appId: string;
  readonly version: string;
  readonly nightly: boolean;
  /** The upstream's download URL and signature when it was checked: either changing means checking again. */
  readonly upstreamDownload: string;
  readonly signature: string;
  readonly status: ReleaseStatus;
  readonly reason: string;
  /** Listed: the archive's SHA-256 and size. Refused: those of the archive refused, when one was read. */
  readonly sha256: string;
  readonly size: number;
  readonly checkedAt: string;
  /** The trust settings it was judged under (upstream-archive-check.ts, trustDigest): under others it is judged again. */
  readonly checkedWith: string;
  /**
   * A release kept after it left the upstream: the upstream's own entry for it (`KeptEntry` as
   * JSON), taken from the document that last had it, so that an export carries it (null: none).
   */
  readonly keptEntry: string | null;
}

/** What a sync may be asked besides the policy. */
export interface SyncOptions {
  /** Check again every release refused before, whatever else changed (`mirror sync --recheck`). */
  readonly recheck?: boolean;
}

export interface MirrorState {
  readonly documents: ReadonlyMap<DocumentName, { readonly etag: string | null; readonly body: string }>;
  readonly releases: readonly MirroredRelease[];
  /** Apps registered here (not from the upstream): an upstream app with one of these ids is refused. */
  readonly localAppIds: ReadonlySet<string>;
  /** Apps taken from the upstream, with the hash of what was applied for each. */
  readonly mirroredApps: ReadonlyMap<string, string>;
}

export interface ListedRelease {
  readonly upstream: UpstreamRelease;
  readonly sha256: string;
  readonly size: number;
  /** This store's URL of the archive. */
  readonly download: string;
  /** Taken from a source's kept releases (an export's): it counts as kept, not as the app's latest release. */
  readonly fromKept?: boolean;
}

export interface MirroredApp {
  readonly upstream: UpstreamApp;
  /** The icon from the newest release downloaded now (null: it has none); absent: the app's icon stays as it is. */
  readonly icon?: AppIcon | null;
  readonly listed: readonly ListedRelease[];
  /** Releases listed before that the upstream no longer has: left as they are, but for their URL here (`download`). */
  readonly kept: readonly { readonly version: string; readonly nightly: boolean; readonly download: string }[];
  /** What was applied: an app whose hash did not move is not written again. */
  readonly hash: string;
}

/** One sync's changes, applied in one transaction. */
export interface MirrorUpdate {
  readonly documents: readonly { readonly name: DocumentName; readonly etag: string | null; readonly body: string }[];
  readonly categories: readonly Category[] | null;
  readonly platforms: readonly PlatformRelease[] | null;
  readonly discover: readonly DiscoverEntry[] | null;
  readonly apps: readonly MirroredApp[];
  /** Mirrored apps no longer taken: removed with their releases. */
  readonly droppedApps: readonly string[];
  /** The whole record of releases considered (replaces the previous one). */
  readonly releases: readonly MirroredRelease[];
}

export interface MirrorStatus {
  readonly documents: readonly { readonly name: string; readonly etag: string | null; readonly fetchedAt: string }[];
  readonly releases: readonly MirroredRelease[];
  /** The last sync or import that read the upstream, and the last that could not (from the audit log). */
  readonly lastChecked: { readonly at: string; readonly event: string } | null;
  readonly lastFailure: { readonly at: string; readonly reason: string } | null;
}

export interface MirrorStore {
  state(): Promise<MirrorState>;
  status(): Promise<MirrorStatus>;
  /** Applies the update in one write transaction (all of it or nothing), with its audit entry. */
  apply(update: MirrorUpdate, now: Date, audit: AuditEntry): Promise<void>;
  /** The export file imported last (from its audit entry); null: none. */
  lastImport(): Promise<{ readonly exportId: string; readonly createdAt: string } | null>;
  /** Records a sync that could not read the upstream (its audit entry): nothing else changes. */
  recordFailure(audit: AuditEntry, now: Date): Promise<void>;
}

export interface MirrorDeps {
  readonly upstream: Upstream;
  readonly storage: ArchiveStorage;
  readonly store: MirrorStore;
  readonly policy: MirrorPolicy;
  /** The upstream's code-signing root and CRL. */
  readonly trust: () => Promise<Trust>;
  /** This store's URL of a release's archive. */
  readonly archiveUrl: (appId: string, version: string, nightly: boolean) => string;
  readonly now: () => Date;
  readonly log: (message: string) => void;
  /** Archives fetched at once. */
  readonly concurrency?: number;
}

export interface SyncReport {
  readonly upstream: string;
  readonly documents: Readonly<Record<DocumentName, 'unchanged' | 'fetched'>>;
  readonly apps: number;
  /** Archives downloaded, checked and stored by this sync. */
  readonly taken: number;
  /** Releases listed as before, nothing downloaded. */
  readonly unchanged: number;
  /** Upstream releases the policy leaves out. */
  readonly skipped: number;
  readonly refused: readonly { readonly release: string; readonly reason: string }[];
  readonly removed: number;
  readonly bytes: number;
  readonly durationMs: number;
  /** What of the upstream's documents could not be taken (the rest was). */
  readonly problems: readonly string[];
}

/** Why a release is in a plan: new upstream, offered otherwise, its archive missing here, or a refusal judged again (and why). */
export type PlanReason =
  | 'new'
  | 'changed upstream'
  | 'archive missing here'
  | 'unavailable before'
  | 'refused before: the trust settings changed'
  | "refused before: the archive's size changed upstream"
  | 'refused before: --recheck';

export interface SyncPlan {
  readonly upstream: string;
  readonly apps: number;
  readonly releases: readonly { readonly release: string; readonly bytes: number | null; readonly why: PlanReason }[];
  /** Bytes to download (what the upstream announced). */
  readonly bytes: number;
  readonly unknownSizes: number;
  readonly skipped: number;
  /** Refusals that stand: the same offer, the same trust, the same archive size. */
  readonly refusedBefore: number;
  /** Listed releases whose certificate is judged again (the trust settings changed): nothing to download. */
  readonly rejudged: number;
  readonly problems: readonly string[];
}
