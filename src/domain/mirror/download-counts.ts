/**
 * Downloads counted by this store (mirror mode): only the archives it serves itself, the releases
 * of apps taken from the upstream. A count per release, nothing about who downloaded.
 */

/** Per app, then per release (`downloadKey`); an app absent has its archives elsewhere (not counted). */
export type DownloadCounts = ReadonlyMap<string, ReadonlyMap<string, number>>;

export const downloadKey = (version: string, nightly: boolean): string => `${version}${nightly ? ' nightly' : ''}`;

/** All downloads of one app; null when this store does not serve its archives. */
export function appDownloads(counts: DownloadCounts, appId: string): number | null {
  const app = counts.get(appId);
  if (app === undefined) return null;
  let total = 0;
  for (const count of app.values()) total += count;
  return total;
}
