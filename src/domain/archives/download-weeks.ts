import type { ReleaseDownloads } from './download-counts.ts';

/**
 * The developer's chart (issue 52): downloads per week (weeks start on Monday, UTC) over the last
 * weeks, the current one included as far as it went, and per release. Pure: from what storage
 * gave (download-stats.ts).
 */

export interface WeekCount {
  /** The Monday the week starts on, `YYYY-MM-DD`. */
  readonly week: string;
  readonly count: number;
}

export interface DownloadChart {
  readonly weeks: readonly WeekCount[];
  /** Releases served here, newest listed first as given, with their totals. */
  readonly releases: ReadonlyArray<{ readonly label: string; readonly count: number }>;
}

const DAY_MS = 86_400_000;

/** The Monday (UTC) of the week `at` falls in. */
export function weekStart(at: Date): Date {
  const midnight = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
  const sinceMonday = (new Date(midnight).getUTCDay() + 6) % 7;
  return new Date(midnight - sinceMonday * DAY_MS);
}

/** The first day the chart of `weeks` weeks ending with this one reads. */
export function chartStart(today: Date, weeks: number): string {
  return new Date(weekStart(today).getTime() - (weeks - 1) * 7 * DAY_MS).toISOString().slice(0, 10);
}

export function downloadChart(releases: readonly ReleaseDownloads[], today: Date, weeks: number): DownloadChart {
  const first = weekStart(today).getTime() - (weeks - 1) * 7 * DAY_MS;
  const counts = new Array<number>(weeks).fill(0);
  for (const release of releases) {
    for (const { day, count } of release.days) {
      const index = Math.floor((Date.parse(`${day}T00:00:00Z`) - first) / (7 * DAY_MS));
      if (index >= 0 && index < weeks) counts[index] = (counts[index] ?? 0) + count;
    }
  }
  return {
    weeks: counts.map((count, i) => ({ week: new Date(first + i * 7 * DAY_MS).toISOString().slice(0, 10), count })),
    releases: releases
      .filter((r) => r.served)
      .map((r) => ({ label: `${r.version}${r.nightly ? ' (nightly)' : ''}`, count: r.total })),
  };
}
