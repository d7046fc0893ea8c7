import type { ArchiveStorage } from './archive-storage.ts';

/**
 * Archives kept by the store for its releases (issue 52, docs/decisions.md): a publish keeps the
 * archive it downloaded and checked, and the listings give the store's URL for it, so an install
 * never depends on the developer's host staying up. The developer's URL is kept beside it.
 * Storage is shared by releases (by SHA-256): an archive is deleted once no release names it.
 */

/** The path of a release's archive on this store: stable, one per release. */
export function archivePath(appId: string, version: string, nightly: boolean): string {
  return `/api/v1/archives/${appId}/${nightly ? 'nightly/' : ''}${encodeURIComponent(version)}.tar.gz`;
}

/** What storage knows of which releases name which archives. */
export interface ArchiveReferences {
  /** Of these SHA-256s, those that no release names now. */
  unreferenced(sha256s: readonly string[]): Promise<string[]>;
  /** The SHA-256s of an app's releases (read before the app is deleted). */
  ofApp(appId: string): Promise<string[]>;
  /** Every SHA-256 a release names whose archive the store serves (kept here, or taken from an upstream). */
  served(): Promise<Set<string>>;
  /** Every SHA-256 any release names. */
  all(): Promise<Set<string>>;
}

export interface KeptArchives {
  readonly storage: ArchiveStorage;
  readonly references: ArchiveReferences;
  /** Whether a publish keeps its archive (APPSTORE_KEEP_ARCHIVES). */
  readonly keepNew: boolean;
  /** Where the store's archive URLs begin: `{APPSTORE_PUBLIC_URL}/api/v1/archives/`. */
  readonly base: string;
  /** The store's URL of a release's archive (absolute, under `base`). */
  url(appId: string, version: string, nightly: boolean): string;
  /** An archive that could not be deleted: for the log (the check finds it later). */
  readonly failed: (message: string, error: unknown) => void;
}

/**
 * Deletes from storage those of `sha256s` that no release names any more. Never throws: it runs
 * after the change was saved and answered; what it could not delete, `appstore archives check`
 * finds.
 */
export async function forgetArchives(sha256s: readonly string[], archives: KeptArchives): Promise<void> {
  if (sha256s.length === 0) return;
  try {
    for (const sha256 of await archives.references.unreferenced([...new Set(sha256s)]))
      await archives.storage.delete(sha256);
  } catch (error) {
    archives.failed('an archive no release names any more could not be deleted', error);
  }
}

/**
 * An archive stored less than this long ago that no release names yet may belong to a publish
 * or sync under way (stored before its release is saved): a check does not call it an orphan.
 */
export const ORPHAN_GRACE_MS = 60 * 60_000;

/** What `appstore archives check` finds: archives stored that no release names, and releases whose kept archive is missing. */
export interface ArchiveCheck {
  readonly stored: number;
  readonly orphans: readonly string[];
  /** Unnamed, but stored within ORPHAN_GRACE_MS: left alone. */
  readonly recent: number;
  readonly missing: readonly string[];
}

export async function checkArchives(archives: KeptArchives, now: Date): Promise<ArchiveCheck> {
  const stored = new Map<string, Date>();
  for await (const archive of archives.storage.list()) stored.set(archive.sha256, archive.storedAt);
  // Read after the listing: an archive stored meanwhile is then named, or recent.
  const [named, served] = await Promise.all([archives.references.all(), archives.references.served()]);
  const unnamed = [...stored].filter(([sha256]) => !named.has(sha256));
  const orphans = unnamed
    .filter(([, at]) => now.getTime() - at.getTime() >= ORPHAN_GRACE_MS)
    .map(([sha256]) => sha256)
    .sort();
  const missing = [...served].filter((sha256) => !stored.has(sha256)).sort();
  return { stored: stored.size, orphans, recent: unnamed.length - orphans.length, missing };
}

/** Deletes the orphans a check found that no release names now either; returns how many. */
export async function deleteOrphans(orphans: readonly string[], archives: KeptArchives): Promise<number> {
  const still = await archives.references.unreferenced(orphans);
  for (const sha256 of still) await archives.storage.delete(sha256);
  return still.length;
}
