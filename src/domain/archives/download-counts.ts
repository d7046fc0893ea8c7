/**
 * Downloads counted by this store: only the archives it serves itself (kept at publish, uploaded,
 * or taken from an upstream in mirror mode). A count per release and day, nothing about who
 * downloaded (download-counter.ts).
 */

/** One app's downloads per release (`downloadKey`); a release absent is not served here (count unknown). */
export type AppDownloadCounts = ReadonlyMap<string, number>;

/** Per app; an app absent has no archive served here. */
export type DownloadCounts = ReadonlyMap<string, AppDownloadCounts>;

export const downloadKey = (version: string, nightly: boolean): string => `${version}${nightly ? ' nightly' : ''}`;

/** One release's downloads; null when the store does not serve its archive (downloaded elsewhere, uncounted). */
export const releaseDownloads = (
  counts: AppDownloadCounts,
  release: { readonly version: string; readonly isNightly: boolean },
): number | null => counts.get(downloadKey(release.version, release.isNightly)) ?? null;

/** All downloads of one app's releases served here. */
export function totalDownloads(counts: AppDownloadCounts): number {
  let total = 0;
  for (const count of counts.values()) total += count;
  return total;
}

/** What storage knows of one release's downloads. */
export interface ReleaseDownloads {
  readonly version: string;
  readonly nightly: boolean;
  readonly download: string;
  /** False: the archive is downloaded from elsewhere; nothing is counted. */
  readonly served: boolean;
  readonly total: number;
  /** Days with downloads since the day asked for, oldest first. */
  readonly days: ReadonlyArray<{ readonly day: string; readonly count: number }>;
}
