import type { ListedApp, ListedRelease } from '../listings/app-listing.ts';
import { compareReleasesDescending, platformBounds } from '../listings/app-listing.ts';
import type { ListedRating } from '../listings/listings.ts';
import { compareNumericVersions, isStable, satisfies } from '../versions/semantic-version.ts';
import type { PlatformRelease } from '../catalog/catalog.ts';
import type { DaySnapshot } from './latest-snapshot.ts';
import { LatestSnapshot } from './latest-snapshot.ts';
import type { ListingSources, VersionSource } from '../listings/listings.ts';
import { recentWindowStart } from '../listings/rating-aggregate.ts';
import { appNotFound } from '../apps/app-registry.ts';
import type { AppTranslation } from '../releases/release-data.ts';

/** What the website's catalogue pages read, as of one content version. */
export interface CatalogView {
  /** Every listed app (those with a release). */
  readonly apps: readonly ListedApp[];
  /** Each app's ratings as ratings.json shows them, newest first. */
  readonly ratings: ReadonlyMap<string, readonly ListedRating[]>;
  /** The supported Nextcloud releases, newest first. */
  readonly platforms: readonly PlatformRelease[];
}

export interface CatalogBrowseDeps {
  readonly catalog: () => Promise<CatalogView>;
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
export function currentCatalog(sources: Pick<ListingSources, 'apps' | 'ratings' | 'platforms'>, versions: VersionSource, now: () => Date): () => Promise<CatalogView> {
  const snapshots = new LatestSnapshot<DaySnapshot & CatalogView>(async (window) => {
    const [apps, ratings, platforms] = await Promise.all([sources.apps(window.since), sources.ratings(), sources.platforms()]);
    return { stamp: apps.stamp, day: window.day, apps: apps.body, ratings: ratingsByApp(ratings.body), platforms: platforms.body };
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

export interface HomeView {
  readonly featured: readonly ListedApp[];
  readonly newest: readonly ListedApp[];
  readonly updated: readonly ListedApp[];
  /** Category ids with the number of listed apps in each, most populated first. */
  readonly categories: ReadonlyArray<{ readonly id: string; readonly apps: number }>;
  readonly total: number;
}

const SECTION_SIZE = 12;

/** The home page: featured apps, the newest and the recently updated ones, the categories. */
export function homeView(apps: readonly ListedApp[]): HomeView {
  const byDate = (key: 'created' | 'lastModified') => [...apps].sort((a, b) => b[key].localeCompare(a[key]) || a.id.localeCompare(b.id)).slice(0, SECTION_SIZE);
  const counts = new Map<string, number>();
  for (const app of apps) for (const category of app.categories) counts.set(category, (counts.get(category) ?? 0) + 1);
  return {
    featured: apps.filter((app) => app.isFeatured).slice(0, SECTION_SIZE),
    newest: byDate('created'),
    updated: byDate('lastModified'),
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
