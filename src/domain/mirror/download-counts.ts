/**
 * Downloads counted by this store (mirror mode): only the archives it serves itself, the releases
 * of apps taken from the upstream. A count per release, nothing about who downloaded.
 */

/** One app's downloads per release (`downloadKey`). */
export type AppDownloadCounts = ReadonlyMap<string, number>;

/** Per app; an app absent has its archives elsewhere (not counted). */
export type DownloadCounts = ReadonlyMap<string, AppDownloadCounts>;

export const downloadKey = (version: string, nightly: boolean): string => `${version}${nightly ? ' nightly' : ''}`;

/** One release's downloads (0 when never downloaded). */
export const releaseDownloads = (
  counts: AppDownloadCounts,
  release: { readonly version: string; readonly isNightly: boolean },
): number => counts.get(downloadKey(release.version, release.isNightly)) ?? 0;

/** All downloads of one app's releases. */
export function totalDownloads(counts: AppDownloadCounts): number {
  let total = 0;
  for (const count of counts.values()) total += count;
  return total;
}
