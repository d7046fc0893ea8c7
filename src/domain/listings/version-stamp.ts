/** The content version of the whole database: every write that changes a listing bumps it. */
export interface VersionStamp {
  readonly version: number;
  readonly changedAt: Date;
  /** Random per database, so a rebuilt database never reuses an old ETag. */
  readonly instanceId: string;
}

/**
 * The entity tag of one listing variant at one content version. Only `[A-Za-z0-9._-]` inside
 * the quotes: Nextcloud servers use the value as a folder name.
 */
export function listingEtag(stamp: VersionStamp, variant: string): string {
  const safeVariant = variant.replace(/[^A-Za-z0-9._-]/g, '_');
  return `"${stamp.instanceId}-${stamp.version}-${safeVariant}"`;
}
