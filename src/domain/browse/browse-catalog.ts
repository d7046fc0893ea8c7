import type { ListedApp, ListedRelease } from '../listings/app-listing.ts';
import { compareReleasesDescending, platformBounds } from '../listings/app-listing.ts';
import type { ListedRating } from '../listings/listings.ts';
import { compareNumericVersions, isStable, satisfies } from '../versions/semantic-version.ts';
import type { Category, PlatformRelease } from '../catalog/catalog.ts';
import type { DaySnapshot } from './latest-snapshot.ts';
import { LatestSnapshot } from './latest-snapshot.ts';
import type { ListingSources, VersionSource } from '../listings/listings.ts';
import { recentWindowStart } from '../listings/rating-aggregate.ts';
import { appNotFound } from '../apps/app-registry.ts';
import { AppError } from '../../errors.ts';
import type { AppTranslation } from '../releases/release-data.ts';

/** What the website's catalogue pages read, as of one content version. */
export interface CatalogView {
  /** Every listed app (those with a release). */
  readonly apps: readonly ListedApp[];
  /** Each app's ratings as ratings.json shows them, newest first. */
  readonly ratings: ReadonlyMap<string, readonly ListedRating[]>;
  /** The supported Nextcloud releases, newest first. */
  readonly platforms: readonly PlatformRelease[];
  /** Every category with its names. */
  readonly categories: readonly Category[];
  /** The names raters chose to be shown by (their first and last name, else their username), by user id. */
  readonly raterNames: ReadonlyMap<number, string>;
  /** App id → its icon (taken from its archive at publishing), for apps that have one. */
  readonly icons: ReadonlyMap<string, IconRef>;
}

/** An app's icon as pages link it: its content hash, and whether it is drawn dark (for light backgrounds). */
export interface IconRef {
  readonly hash: string;
  readonly dark: boolean;
}

/** What the catalogue view is read from: the listings' sources, and the raters' names (never in ratings.json). */
export interface BrowseSources extends Pick<ListingSources, 'apps' | 'ratings' | 'platforms' | 'categories'> {
  raterNames(): Promise<ReadonlyMap<number, string>>;
  icons(): Promise<ReadonlyMap<string, IconRef>>;
}

export interface CatalogBrowseDeps {
  readonly catalog: () => Promise<CatalogView>;
  /** The icon with this content hash, as served; null when no app has it now. */
  readonly icon: (hash: string) => Promise<string | null>;
}

function ratingsByApp(ratings: readonly ListedRating[]): Map<string, ListedRating[]> {
  const byApp = new Map<string, ListedRating[]>();
  for (const rating of ratings) {
    const list = byApp.get(rating.app);
    if (list === undefined) byApp.set(rating.app, [rating]);
    else list.push(rating);
  }
  for (const list of byApp.values()) list.sort((a, b) => b.ratedAt.localeCompare(a.ratedAt));
  return byApp;
}

/**
 * The listed apps as of the current content version and day, from the listings' own sources:
 * read from storage once per version and day, not on every page view.
 */
export function currentCatalog(sources: BrowseSources, versions: VersionSource, now: () => Date): () => Promise<CatalogView> {
  const snapshots = new LatestSnapshot<DaySnapshot & CatalogView>(async (window) => {
    const [apps, ratings, platforms, categories, raterNames, icons] = await Promise.all([sources.apps(window.since), sources.ratings(), sources.platforms(), sources.categories(), sources.raterNames(), sources.icons()]);
    return { stamp: apps.stamp, day: window.day, apps: apps.body, ratings: ratingsByApp(ratings.body), platforms: platforms.body, categories: categories.body, raterNames, icons };
  });
  return async () => snapshots.get(recentWindowStart(now()), versions.current ?? (await versions.ready()));
}

/** The newest stable release for each supported Nextcloud major version (its newest patch release), newest first. */
export function latestPerPlatform(app: ListedApp, platforms: readonly PlatformRelease[]): Array<{ readonly platform: string; readonly release: ListedRelease }> {
  const newestOfMajor = new Map<string, string>();
  for (const platform of platforms) {
    const major = platform.version.split('.')[0] ?? platform.version;
    const known = newestOfMajor.get(major);
    if (known === undefined || compareNumericVersions(platform.version, known) > 0) newestOfMajor.set(major, platform.version);
  }
  const releases = app.releases.filter((release) => !release.isNightly && isStable(release.version, false)).sort(compareReleasesDescending);
  const rows: Array<{ platform: string; release: ListedRelease }> = [];
  for (const [major, version] of [...newestOfMajor].sort((a, b) => compareNumericVersions(b[1], a[1]))) {
    const release = releases.find((candidate) => satisfies(version, platformBounds(candidate)));
    if (release !== undefined) rows.push({ platform: major, release });
  }
  return rows;
}

/**
 * The Nextcloud versions an app supports, as its info.xml files say (min-version and max-version,
 * over its stable releases): the lowest minimum, and the highest maximum ('' when some release
 * sets none: it has no upper bound).
 */
export function nextcloudRange(app: ListedApp): { readonly min: string; readonly max: string } | null {
  const releases = app.releases.filter((release) => !release.isNightly && isStable(release.version, false));
  if (releases.length === 0) return null;
  let min: string | null = null;
  let max: string | null = null;
  let unbounded = false;
  for (const release of releases) {
    const tokens = release.rawPlatformVersionSpec.trim().split(/\s+/);
    const low = tokens.find((t) => t.startsWith('>='))?.slice(2) ?? null;
    const high = tokens.find((t) => t.startsWith('<='))?.slice(2) ?? null;
    if (low !== null && (min === null || compareNumericVersions(low, min) < 0)) min = low;
    if (high === null) unbounded = true;
    else if (max === null || compareNumericVersions(high, max) > 0) max = high;
  }
  return min === null ? null : { min, max: unbounded ? '' : (max ?? '') };
}

export interface HomeView {
  readonly featured: readonly ListedApp[];
  readonly newest: readonly ListedApp[];
  readonly updated: readonly ListedApp[];
  /** Category ids with the number of listed apps in each, most populated first. */
  readonly categories: ReadonlyArray<{ readonly id: string; readonly apps: number }>;
  readonly total: number;
}

const SECTION_SIZE = 12;

/**
 * The home page: featured apps, the newest, the recently updated ones, the categories. "Recently
 * updated" leaves out the apps "New apps" shows already, so a young store does not show the same
 * apps twice (the section is left out when nothing is left).
 */
export function homeView(apps: readonly ListedApp[]): HomeView {
  const byDate = (key: 'created' | 'lastModified') => [...apps].sort((a, b) => b[key].localeCompare(a[key]) || a.id.localeCompare(b.id));
  const newest = byDate('created').slice(0, SECTION_SIZE);
  const shown = new Set(newest.map((app) => app.id));
  const counts = new Map<string, number>();
  for (const app of apps) for (const category of app.categories) counts.set(category, (counts.get(category) ?? 0) + 1);
  return {
    featured: apps.filter((app) => app.isFeatured).slice(0, SECTION_SIZE),
    newest,
    updated: byDate('lastModified')
      .filter((app) => !shown.has(app.id))
      .slice(0, SECTION_SIZE),
    categories: [...counts].map(([id, count]) => ({ id, apps: count })).sort((a, b) => b.apps - a.apps || a.id.localeCompare(b.id)),
    total: apps.length,
  };
}

/** One app's page; the refusal for an app that is not listed (unknown, or without releases). */
export function findListedApp(apps: readonly ListedApp[], appId: string): ListedApp {
  const app = apps.find((candidate) => candidate.id === appId);
  if (app === undefined) throw appNotFound(appId, 'or it has no release yet');
  return app;
}

/** The categories that have listed apps, by id. */
export function catalogCategories(apps: readonly ListedApp[]): string[] {
  return [...new Set(apps.flatMap((app) => app.categories))].sort();
}

/** A category's name in the first of `languages` it has, else English, else its id. */
export function categoryName(categories: readonly Category[], id: string, languages: readonly string[]): string {
  const category = categories.find((candidate) => candidate.id === id);
  if (category === undefined) return id;
  for (const language of [...languages, 'en']) {
    const name = category.translations[language]?.name;
    if (name !== undefined && name !== '') return name;
  }
  return id;
}

/** The category page's category; the refusal for an id the store does not know. */
export function findCategory(categories: readonly Category[], id: string): Category {
  const category = categories.find((candidate) => candidate.id === id);
  if (category === undefined) throw new AppError('not_found', `There is no category ${id}: see /api/v1/categories.json for those there are.`);
  return category;
}

/** The languages the catalogue has texts in (English always), for the language switcher. */
export function catalogLanguages(apps: readonly ListedApp[]): string[] {
  const languages = new Set<string>(['en']);
  for (const app of apps) for (const language of Object.keys(app.translations)) languages.add(language);
  return [...languages].sort();
}

/** The app's texts in the first language it has of those asked for, else English. */
export function textsIn(app: ListedApp, languages: readonly string[]): AppTranslation & { readonly language: string } {
  for (const language of [...languages, 'en']) {
    const texts = app.translations[language];
    if (texts !== undefined) return { ...texts, language };
  }
  const [language, texts] = Object.entries(app.translations)[0] ?? ['en', { name: app.id, summary: '', description: '' }];
  return { ...texts, language };
}
