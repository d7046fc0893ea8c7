import { formatTimestamp } from '../timestamps.ts';

/** An app's ratings as the listings show them (contract §4): mean and count; 0.5 and 0 when none. */
export interface RatingAggregate {
  readonly ratingOverall: number;
  readonly ratingNumOverall: number;
  readonly ratingRecent: number;
  readonly ratingNumRecent: number;
}

export const RECENT_RATING_DAYS = 90;

export function aggregateRatings(
  ratings: ReadonlyArray<{ rating: number; ratedAt: string }>,
  recentSince: string,
): RatingAggregate {
  const mean = (values: number[]): number =>
    values.length === 0 ? 0.5 : values.reduce((a, b) => a + b, 0) / values.length;
  const all = ratings.map((r) => r.rating);
  const recent = ratings.filter((r) => r.ratedAt >= recentSince).map((r) => r.rating);
  return {
    ratingOverall: mean(all),
    ratingNumOverall: all.length,
    ratingRecent: mean(recent),
    ratingNumRecent: recent.length,
  };
}

/**
 * The start of the recent window, at day granularity (UTC midnight 90 days before today), so the
 * listings only change with time once a day: their ETag carries the day.
 */
export interface RecentWindow {
  /** Ratings at or after this timestamp are recent. */
  readonly since: string;
  /** The day (YYYYMMDD, UTC) the window was computed for. */
  readonly day: string;
}

export function recentWindowStart(now: Date): RecentWindow {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const since = new Date(today - RECENT_RATING_DAYS * 86_400_000);
  return { since: formatTimestamp(since), day: windowDay(now) };
}

/** The window's day alone (YYYYMMDD, UTC): what a listing's ETag carries, asked on every conditional request. */
export function windowDay(now: Date): string {
  return now.toISOString().slice(0, 10).replace(/-/g, '');
}
