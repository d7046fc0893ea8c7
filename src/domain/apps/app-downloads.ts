import { said } from '../../i18n/said.ts';
import { requireAppInScope } from '../accounts/token-scopes.ts';
import { AppError } from '../../errors.ts';
import { canManageReleases } from '../accounts/authorization.ts';
import type { User } from '../accounts/user.ts';
import type { AppRegistry } from './app-registry.ts';
import { requireApp } from './app-registry.ts';
import { compareSemanticVersions, parseSemanticVersion } from '../versions/semantic-version.ts';
import type { DownloadCounts, ReleaseDownloads } from '../archives/download-counts.ts';
import { dayOf } from '../archives/download-counter.ts';

/**
 * `GET /api/v1/apps/{id}/downloads` (the original's 5.0.0 route, issue 52): the app's owner and
 * co-maintainers (and administrators) see each release's downloads. The original reads GitHub's
 * counters; this store counts the archives it serves itself, so a release whose archive is
 * downloaded from its developer's host has `downloadCount` null, as the original's unknown ones.
 */

export interface DownloadStatsStore {
  /** The releases of an app, with their counts; the days from `sinceDay` on (none when null). */
  releaseDownloads(appId: string, sinceDay: string | null): Promise<ReleaseDownloads[]>;
  /** Per app, per release served here: the totals the pages show. */
  counts(appIds: readonly string[]): Promise<DownloadCounts>;
}

export interface DownloadStatsDeps {
  readonly registry: Pick<AppRegistry, 'findApp'>;
  readonly stats: DownloadStatsStore;
  readonly now: () => Date;
}

/** One entry of the answer, the original's fields (camelCase on the wire), and the days when asked for. */
export interface ReleaseDownloadEntry {
  readonly version: string;
  readonly isNightly: boolean;
  readonly download: string;
  readonly downloadCount: number | null;
  readonly downloadsByDay?: Array<{ readonly date: string; readonly count: number }>;
}

function newestFirst(a: string, b: string): number {
  const [x, y] = [parseSemanticVersion(a), parseSemanticVersion(b)];
  if (x === null || y === null) return a < b ? 1 : a > b ? -1 : 0;
  return compareSemanticVersions(y, x);
}

/** The longest series one request may ask for. */
export const MAX_SERIES_DAYS = 366;

export async function appDownloadStats(
  appId: string,
  user: User,
  deps: DownloadStatsDeps,
  options: { readonly days?: number } = {},
): Promise<ReleaseDownloadEntry[]> {
  const days = options.days;
  if (days !== undefined && (!Number.isInteger(days) || days < 1 || days > MAX_SERIES_DAYS))
    throw new AppError(
      'invalid_request',
      said`Invalid query string: days: expected a whole number of days from 1 to ${MAX_SERIES_DAYS}.`,
      { days: [said`expected 1 to ${MAX_SERIES_DAYS}`] },
    );
  const app = await requireApp(appId, deps.registry);
  requireAppInScope(user, appId);
  if (!canManageReleases(user, app))
    throw new AppError('forbidden', said`Only the owner and co-maintainers of ${appId} may see its download numbers.`);
  const since = days === undefined ? null : dayOf(new Date(deps.now().getTime() - (days - 1) * 86_400_000));
  const releases = await deps.stats.releaseDownloads(appId, since);
  return releases
    .sort((a, b) => newestFirst(a.version, b.version) || Number(b.nightly) - Number(a.nightly))
    .map((r) => ({
      version: r.version,
      isNightly: r.nightly,
      download: r.download,
      downloadCount: r.served ? r.total : null,
      ...(days === undefined ? {} : { downloadsByDay: r.days.map((d) => ({ date: d.day, count: d.count })) }),
    }));
}
