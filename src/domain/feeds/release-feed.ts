import { said } from '../../i18n/said.ts';
import { AppError } from '../../errors.ts';
import { appIdProblem } from '../app-id.ts';
import type { Donation } from '../releases/release-data.ts';

/**
 * The release feeds (issue 52), at the original's paths and parameters: the newest ten releases
 * of the store, or of one app (`?app=`); nightlies and pre-releases only when asked for
 * (`?nightly=true`, `?prerelease=true`); retired releases never. Rendered as Atom and RSS 2.0
 * (web/feed-xml.ts).
 */

export const FEED_SIZE = 10;

export interface FeedQuery {
  readonly appId: string | null;
  readonly nightly: boolean;
  readonly prerelease: boolean;
  /** The language of the names and changelogs, English where the app has none in it. */
  readonly language: string;
}

export interface FeedRelease {
  readonly appId: string;
  readonly appName: string;
  /** The app's first author, as info.xml names them ('' none). */
  readonly author: string;
  readonly version: string;
  readonly nightly: boolean;
  /** Markdown, as published; '' when the release has none. */
  readonly changelog: string;
  readonly created: string;
  readonly updated: string;
}

export interface FeedStore {
  /** The newest releases (by publish time) that the query lets in, at most `limit`. */
  newestReleases(query: FeedQuery, limit: number): Promise<FeedRelease[]>;
  appExists(appId: string): Promise<boolean>;
  /** The app's donation links, as its latest release gives them (the app page shows them). */
  donations(appId: string): Promise<Donation[]>;
}

/** `true`, `1` (and an empty value, `?nightly`) ask for them; anything else does not. */
export const feedFlag = (value: string | undefined): boolean =>
  value !== undefined && ['', '1', 'true', 'yes', 'on'].includes(value.toLowerCase());

export async function releaseFeed(query: FeedQuery, store: FeedStore): Promise<FeedRelease[]> {
  if (query.appId !== null) {
    const problem = appIdProblem(query.appId);
    if (problem !== null)
      throw new AppError('invalid_request', said`Invalid query string: app: ${problem}.`, { app: [problem] });
    if (!(await store.appExists(query.appId)))
      throw new AppError('app_not_found', said`There is no app '${query.appId}' in this store: no feed for it.`);
  }
  return store.newestReleases(query, FEED_SIZE);
}
