/** The content version of the whole database: every write that changes a listing bumps it. */
export interface VersionStamp {
  readonly version: number;
  readonly changedAt: Date;
  /**
   * The epoch: random, and new for every database, every restore and every migration of the data
   * (docs/operations.md, "Backups and restore"). Version numbers count within one epoch only, and
   * every ETag names it, so content of another epoch never answers an old ETag.
   */
  readonly instanceId: string;
}

/** True when `stamp` is `wanted` or later: the same epoch, and no older a version. */
export function reaches(stamp: VersionStamp, wanted: VersionStamp): boolean {
  return stamp.instanceId === wanted.instanceId && stamp.version >= wanted.version;
}

/** True when `next` is to replace `known` as the newest held: another epoch, or no older a version. */
export function supersedes(next: VersionStamp, known: VersionStamp | undefined): boolean {
  return known === undefined || next.instanceId !== known.instanceId || next.version >= known.version;
}

/**
 * The entity tag of one listing variant at one content version. Only `[A-Za-z0-9._-]` inside
 * the quotes: Nextcloud servers use the value as a folder name.
 */
export function listingEtag(stamp: VersionStamp, variant: string): string {
  const safeVariant = variant.replace(/[^A-Za-z0-9._-]/g, '_');
  return `"${stamp.instanceId}-${stamp.version}-${safeVariant}"`;
}
