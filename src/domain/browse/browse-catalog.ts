import { said } from '../../i18n/said.ts';
import type { ListedApp, ListedRelease } from '../listings/app-listing.ts';
import { compareReleasesDescending, platformBounds } from '../listings/app-listing.ts';
import type { ListedRating, Snapshot, VersionSource } from '../listings/listings.ts';
import { compareNumericVersions, isStable, satisfies } from '../versions/semantic-version.ts';
import type { Category, PlatformRelease } from '../catalog/catalog.ts';
import type { VersionStamp } from '../listings/version-stamp.ts';
import type { DaySnapshot } from './latest-snapshot.ts';
import { LatestSnapshot } from './latest-snapshot.ts';
import { recentWindowStart } from '../listings/rating-aggregate.ts';
import { appNotFound } from '../apps/app-registry.ts';
import { AppError } from '../../errors.ts';
import type { CatalogEntry, EntrySource } from './catalog-entry.ts';
import { catalogEntry } from './catalog-entry.ts';
import { SearchIndex, inOrder } from './search-index.ts';

/** What the website's catalogue pages read, as of one content version and day: compact entries, their index, the rest on demand. */
export interface PageCatalog {
  readonly stamp: VersionStamp;
  readonly day: string;
  /** Every listed app (those with a release), by id. */
  readonly apps: readonly CatalogEntry[];
  readonly index: SearchIndex;
  /** The supported Nextcloud releases, newest first. */
  readonly platforms: readonly PlatformRelease[];
  /** Every category with its names. */
  readonly categories: readonly Category[];
  /** App id → its icon (taken from its archive at publishing), for apps that have one. */
  readonly icons: ReadonlyMap<string, IconRef>;
  /** The languages the catalogue has texts in (English always), for the language switcher. */
  readonly languages: readonly string[];
  /** The categories that have listed apps, by id. */
  readonly listedCategories: readonly string[];
  readonly home: HomeView;
  /** What app pages show, for the listed apps among `appIds` (the most recently asked are kept). */
  details(appIds: readonly string[]): Promise<ReadonlyMap<string, AppDetails>>;
}

/** An app page's data: the app as apps.json shows it, its ratings (newest first, as ratings.json) and the names its raters are shown by. */
export interface AppDetails {
  readonly app: ListedApp;
  readonly ratings: readonly PageRating[];
  readonly raterNames: ReadonlyMap<number, string>;
}

/** A rating as the app page shows it: ratings.json's, and its id, the version rated, the owner's reply, whether its comment is hidden. */
export interface PageRating extends ListedRating {
  readonly id: number;
  /** The app's newest release when the rating was given; null for ratings from before it was kept. */
  readonly appVersion: string | null;
  readonly reply: string | null;
  /** An administrator hid its comment: `translations` is empty. */
  readonly hidden: boolean;
}

/** An app's icon as pages link it: its content hash, and whether it is drawn dark (for light backgrounds). */
export interface IconRef {
  readonly hash: string;
  readonly dark: boolean;
}

/** What the catalogue view is read from (storage, built by the container). */
export interface BrowseSources {
  /** Every listed app's entry source; ratings at or after `recentSince` count as recent. */
  entries(recentSince: string): Promise<Snapshot<EntrySource[]>>;
  categories(): Promise<Snapshot<Category[]>>;
  /** The supported ones, newest first. */
  platforms(): Promise<Snapshot<PlatformRelease[]>>;
  icons(): Promise<ReadonlyMap<string, IconRef>>;
  /** One listed app's details; null when it is not listed. */
  details(appId: string, recentSince: string): Promise<AppDetails | null>;
}

export interface CatalogBrowseDeps {
  readonly catalog: () => Promise<PageCatalog>;
  /** The icon with this content hash, as served; null when no app has it now. */
  readonly icon: (hash: string) => Promise<string | null>;
}

/** App pages whose details a catalogue keeps (the most recently shown). */
const DETAILS_KEPT = 32;

/** The catalogue pages' view of `sources`, as of one content version and day (entries and index built once; details read when asked). */
export function pageCatalog(
  snapshot: DaySnapshot,
  sources: readonly EntrySource[],
  rest: Pick<PageCatalog, 'platforms' | 'categories' | 'icons'>,
  details: (appId: string) => Promise<AppDetails | null>,
): PageCatalog {
  const apps = sources.map(catalogEntry);
  const index = new SearchIndex(sources);
  const listed = new Set(apps.map((app) => app.id));
  const kept = new Map<string, AppDetails>();
  const languages = new Set<string>(['en']);
  for (const app of apps) for (const language of Object.keys(app.translations)) languages.add(language);
  return {
    ...snapshot,
    ...rest,
    apps,
    index,
    languages: [...languages].sort(),
    listedCategories: [...new Set(apps.flatMap((app) => app.categories))].sort(),
    home: homeView(apps, index),
    async details(appIds) {
      const found = new Map<string, AppDetails>();
      for (const appId of appIds) {
        if (!listed.has(appId)) continue;
        let known = kept.get(appId);
        if (known === undefined) {
          const read = await details(appId);
          if (read === null) continue;
          known = read;
          if (kept.size >= DETAILS_KEPT) kept.delete(kept.keys().next().value ?? '');
        } else kept.delete(appId);
        kept.set(appId, known);
        found.set(appId, known);
      }
      return found;
    },
  };
}

/**
 * The listed apps as of the current content version and day: read from storage and indexed once
 * per version and day, not on every page view.
 */
export function currentCatalog(
  sources: BrowseSources,
  versions: VersionSource,
  now: () => Date,
): () => Promise<PageCatalog> {
  const snapshots = new LatestSnapshot<PageCatalog>(async (window) => {
    const [entries, platforms, categories, icons] = await Promise.all([
      sources.entries(window.since),
      sources.platforms(),
      sources.categories(),
      sources.icons(),
    ]);
    return pageCatalog(
      { stamp: entries.stamp, day: window.day },
      entries.body,
      { platforms: platforms.body, categories: categories.body, icons },
      (appId) => sources.details(appId, window.since),
    );
  });
  return async () => snapshots.get(recentWindowStart(now()), versions.current ?? (await versions.ready()));
}

/** The app's newest stable release, else its newest release of any kind (a beta, a nightly); undefined without releases. */
export function newestRelease(app: Pick<ListedApp, 'releases'>): ListedRelease | undefined {
  const ordered = [...app.releases].sort(compareReleasesDescending);
  return ordered.find((release) => !release.isNightly && isStable(release.version, false)) ?? ordered[0];
}

/** The newest stable release for each supported Nextcloud major version (its newest patch release), newest first. */
export function latestPerPlatform(
  app: ListedApp,
  platforms: readonly PlatformRelease[],
): Array<{ readonly platform: string; readonly release: ListedRelease }> {
  const newestOfMajor = new Map<string, string>();
  for (const platform of platforms) {
    const major = platform.version.split('.')[0] ?? platform.version;
    const known = newestOfMajor.get(major);
    if (known === undefined || compareNumericVersions(platform.version, known) > 0)
      newestOfMajor.set(major, platform.version);
  }
  const releases = app.releases
    .filter((release) => !release.isNightly && isStable(release.version, false))
    .sort(compareReleasesDescending);
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
export function nextcloudRange(app: ListedApp): NextcloudRange | null {
  const releases = app.releases.filter((release) => !release.isNightly && isStable(release.version, false));
  if (releases.length === 0) return null;
  let min: string | null = null;
  let max: string | null = null;
  let unbounded = false;
  for (const release of releases) {
    const range = releaseRange(release);
    if (range.min !== '' && (min === null || compareNumericVersions(range.min, min) < 0)) min = range.min;
    if (range.max === '') unbounded = true;
    else if (max === null || compareNumericVersions(range.max, max) > 0) max = range.max;
  }
  return min === null ? null : { min, max: unbounded ? '' : (max ?? '') };
}

/** Nextcloud versions as info.xml gives them: the lowest and highest ('' where there is no bound). */
export interface NextcloudRange {
  readonly min: string;
  readonly max: string;
}

/**
 * The Nextcloud versions one release supports, as its info.xml says them (min-version and
 * max-version, e.g. 29 and 32): what every page shows, in one way (SiteStrings.versionRange).
 */
export function releaseRange(release: Pick<ListedApp['releases'][number], 'rawPlatformVersionSpec'>): NextcloudRange {
  return specBounds(release.rawPlatformVersionSpec);
}

/** The bounds of a version spec as info.xml's attributes make it (">=8.1 <=8.4"); '' where there is none. */
export function specBounds(spec: string): NextcloudRange {
  const tokens = spec.trim().split(/\s+/);
  return {
    min: tokens.find((t) => t.startsWith('>='))?.slice(2) ?? '',
    max: tokens.find((t) => t.startsWith('<='))?.slice(2) ?? '',
  };
}

export interface HomeView {
  readonly featured: readonly CatalogEntry[];
  readonly newest: readonly CatalogEntry[];
  readonly updated: readonly CatalogEntry[];
  /** Category ids with the number of listed apps in each, most populated first. */
  readonly categories: ReadonlyArray<{ readonly id: string; readonly apps: number }>;
  readonly total: number;
}

const SECTION_SIZE = 12;

/**
 * The home page: featured apps, the newest, the recently updated ones, the categories. "Recently
 * updated" leaves out the apps "New apps" shows already, so a young store does not show the same
 * apps twice (the section is left out when nothing is left). Made once per catalogue.
 */
export function homeView(all: readonly CatalogEntry[], index: SearchIndex): HomeView {
  // Deprecated apps are not shown off (issue 52); a search that asks for them finds them.
  const shownOff = (list: readonly CatalogEntry[]): CatalogEntry[] => list.filter((app) => !app.isDeprecated);
  const apps = shownOff(all);
  const newest = shownOff(inOrder(all, index.orders.newest)).slice(0, SECTION_SIZE);
  const shown = new Set(newest.map((app) => app.id));
  const counts = new Map<string, number>();
  for (const app of apps) for (const category of app.categories) counts.set(category, (counts.get(category) ?? 0) + 1);
  return {
    featured: apps.filter((app) => app.isFeatured).slice(0, SECTION_SIZE),
    newest,
    updated: shownOff(inOrder(all, index.orders.updated))
      .filter((app) => !shown.has(app.id))
      .slice(0, SECTION_SIZE),
    categories: [...counts]
      .map(([id, count]) => ({ id, apps: count }))
      .sort((a, b) => b.apps - a.apps || a.id.localeCompare(b.id)),
    total: apps.length,
  };
}

/** One app's page; the refusal for an app that is not listed (unknown, or without releases). */
export async function findListedApp(catalog: PageCatalog, appId: string): Promise<AppDetails> {
  const details = (await catalog.details([appId])).get(appId);
  if (details === undefined) throw appNotFound(appId, said`or it has no release yet`);
  return details;
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

/** A category's description in the first of `languages` that has one, else English's; '' when none has one. */
export function categoryDescription(categories: readonly Category[], id: string, languages: readonly string[]): string {
  const category = categories.find((candidate) => candidate.id === id);
  for (const language of [...languages, 'en']) {
    const description = category?.translations[language]?.description;
    if (description !== undefined && description !== '') return description;
  }
  return '';
}

/** The category page's category; the refusal for an id the store does not know. */
export function findCategory(categories: readonly Category[], id: string): Category {
  const category = categories.find((candidate) => candidate.id === id);
  if (category === undefined)
    throw new AppError('not_found', said`There is no category ${id}: see /api/v1/categories.json for those there are.`);
  return category;
}

/** The language of the app's texts a visitor of `languages` reads: the first the app has, else English, else its first. */
export function shownLanguageOf(
  app: { readonly translations: Readonly<Record<string, unknown>> },
  languages: readonly string[],
): string {
  for (const language of languages) if (app.translations[language] !== undefined) return language;
  if (app.translations['en'] !== undefined) return 'en';
  for (const language in app.translations) return language;
  return 'en';
}

/** The app's texts in the first language it has of those asked for, else English. */
export function textsIn<T extends { readonly name: string }>(
  app: { readonly id: string; readonly translations: Readonly<Record<string, T>> },
  languages: readonly string[],
): T & { readonly language: string } {
  const language = shownLanguageOf(app, languages);
  const texts = app.translations[language];
  // Every listed app has texts (info.xml requires them); a name is all a page could show without.
  return texts === undefined
    ? ({ name: app.id, summary: '', description: '', language } as unknown as T & { language: string })
    : { ...texts, language };
}
