import type { AppDetails, IconRef, PageRating } from '../../domain/browse/browse-catalog.ts';
import type { EntrySource } from '../../domain/browse/catalog-entry.ts';
import { sql } from 'kysely';
import type { ExpressionBuilder, Kysely } from 'kysely';
import type { AppStatusFields, ListedApp, ListingApp, ListingRelease } from '../../domain/listings/app-listing.ts';
import type { ListedRating } from '../../domain/listings/listings.ts';
import { aggregateRatings } from '../../domain/listings/rating-aggregate.ts';
import type { AppTranslation, Author, Screenshot } from '../../domain/releases/release-data.ts';
import { toBool } from '../schema.ts';
import type { Database } from '../schema.ts';
import {
  CURRENT_TEXT,
  LISTED_RELEASE_COLUMNS,
  NO_CURRENT_TEXT,
  groupBy,
  loadReleaseDetails,
  toListedRelease,
} from './listed-release.repository.ts';

/** The apps that are listed: those with at least one release. */
const hasRelease = (eb: ExpressionBuilder<Database, 'apps'>) =>
  eb.exists(
    eb
      .selectFrom('releases')
      .select('releases.id')
      .whereRef('releases.app_id', '=', 'apps.id')
      .where('releases.retired_at', 'is', null),
  );

/** Apps that have at least one release, ordered by id, with the version of their last listed change. */
export async function loadListedAppIndex(db: Kysely<Database>): Promise<Array<{ id: string; listingVersion: number }>> {
  const rows = await db.selectFrom('apps').select(['id', 'listing_version']).where(hasRelease).orderBy('id').execute();
  return rows.map((row) => ({ id: row.id, listingVersion: Number(row.listing_version) }));
}

/** Per app, the number of its ratings at or after `recentSince`. */
export async function countRecentRatings(db: Kysely<Database>, recentSince: string): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('ratings')
    .select(['app_id', (eb) => eb.fn.countAll<number | string | bigint>().as('recent')])
    .where('rated_at', '>=', recentSince)
    .groupBy('app_id')
    .execute();
  return new Map(rows.map((row) => [row.app_id, Number(row.recent)]));
}

/**
 * Everything apps.json shows, in a handful of queries (no query per app or release): apps that
 * have at least one release, with their releases, texts and rating aggregates.
 */
export async function loadListedApps(db: Kysely<Database>, recentSince: string): Promise<ListedApp[]> {
  return (await loadAppsWithVersions(db, recentSince, null)).map((row) => row.app);
}

/**
 * Like loadListedApps, for the apps named only (null: all of them), each with the version of its
 * last listed change: what the app pages read.
 */
export async function loadAppsWithVersions(
  db: Kysely<Database>,
  recentSince: string,
  ids: readonly string[] | null,
): Promise<Array<{ listingVersion: number; app: ListedApp }>> {
  return loadAppsWith(db, recentSince, ids, async (scope) => {
    const [rows, details] = await Promise.all([
      releaseRows(db, scope).select(LISTED_RELEASE_COLUMNS).execute(),
      loadReleaseDetails(db, scope),
    ]);
    const releasesOf = groupBy(rows, (r) => r.app_id);
    return (appId) => (releasesOf.get(appId) ?? []).map((row) => toListedRelease(row, details));
  });
}

/**
 * The apps named as the listing engine reads them (loadAppsWithVersions): a release whose listing
 * text was written in the current format comes as that text, and only the other releases'
 * details are read. A new database's first render of 600 apps reads 19,800 texts where it read
 * 19,800 release rows and 60,000 rows of their details and serialised them all.
 */
export async function loadListingApps(
  db: Kysely<Database>,
  recentSince: string,
  ids: readonly string[],
): Promise<Array<{ listingVersion: number; app: ListingApp }>> {
  return loadAppsWith(db, recentSince, ids, async (scope) => {
    // What every release needs: its text where it is current, and what releases are ordered and
    // chosen by. The other columns and the details only for the releases without one.
    const rows = await releaseRows(db, scope)
      .select([
        'id',
        'app_id',
        'version',
        'is_nightly',
        'updated_at',
        'platform_version_spec',
        sql<Buffer | null>`case when ${CURRENT_TEXT} then listing_text end`.as('text'),
      ])
      .execute();
    const unwritten = rows.filter((row) => row.text === null).length;
    const [whole, details, exApps] = await Promise.all([
      unwritten === 0
        ? Promise.resolve([])
        : releaseRows(db, scope).where(NO_CURRENT_TEXT).select(LISTED_RELEASE_COLUMNS).execute(),
      loadReleaseDetails(db, unwritten === 0 ? { releaseIds: [] } : { appIds: scope?.appIds ?? [], unwritten: true }),
      // Which written releases are ExApps' (their text says so too, but is not parsed).
      unwritten === rows.length ? Promise.resolve(new Set<number>()) : exAppReleaseIds(db, scope),
    ]);
    const wholeRows = new Map(whole.map((row) => [Number(row.id), row]));
    const releasesOf = groupBy(rows, (r) => r.app_id);
    return (appId) =>
      (releasesOf.get(appId) ?? []).map((row): ListingRelease => {
        if (row.text !== null) {
          return {
            version: row.version,
            isNightly: toBool(row.is_nightly),
            lastModified: row.updated_at,
            platformVersionSpec: row.platform_version_spec,
            exApp: exApps.has(Number(row.id)),
            writtenText: row.text,
          };
        }
        // Both reads are in the batch's one snapshot: a release read once is there the second time.
        const full = wholeRows.get(Number(row.id));
        if (full === undefined)
          throw new Error(
            `release ${row.id} of ${appId} was not read again: the listing's reads are not in one snapshot`,
          );
        return toListedRelease(full, details);
      });
  });
}

/** The releases of the apps in scope (every release when it is null), for the columns a caller selects. */
function releaseRows(db: Kysely<Database>, scope: { readonly appIds: readonly string[] } | null) {
  // A retired release is no longer offered (issue 52).
  return db
    .selectFrom('releases')
    .where('retired_at', 'is', null)
    .$if(scope !== null, (q) => q.where('app_id', 'in', scope?.appIds ?? []));
}

async function exAppReleaseIds(
  db: Kysely<Database>,
  scope: { readonly appIds: readonly string[] } | null,
): Promise<Set<number>> {
  const rows = await db
    .selectFrom('release_external_apps')
    .select('release_id')
    .$if(scope !== null, (q) =>
      q.where(
        'release_id',
        'in',
        db
          .selectFrom('releases')
          .select('id')
          .where('app_id', 'in', scope?.appIds ?? []),
      ),
    )
    .execute();
  return new Set(rows.map((row) => Number(row.release_id)));
}

/**
 * The listed apps named (null: all of them), each with the version of its last listed change, in
 * a handful of queries (none per app or release): apps that have at least one release, with their
 * texts, rating aggregates and, from `releasesFor`, their releases.
 */
async function loadAppsWith<R>(
  db: Kysely<Database>,
  recentSince: string,
  ids: readonly string[] | null,
  releasesFor: (scope: { readonly appIds: readonly string[] } | null) => Promise<(appId: string) => R[]>,
): Promise<Array<{ listingVersion: number; app: Omit<ListedApp, 'releases'> & { releases: R[] } }>> {
  if (ids !== null && ids.length === 0) return [];
  const apps = await db
    .selectFrom('apps')
    .selectAll()
    .where(hasRelease)
    .$if(ids !== null, (q) => q.where('id', 'in', ids ?? []))
    .orderBy('id')
    .execute();
  const appIds = ids ?? [];
  const some = ids !== null;
  const [translations, authors, screenshots, categories, ratings, releasesOf, retired] = await Promise.all([
    db
      .selectFrom('app_translations')
      .selectAll()
      .$if(some, (q) => q.where('app_id', 'in', appIds))
      .orderBy('language')
      .execute(),
    db
      .selectFrom('app_authors')
      .selectAll()
      .$if(some, (q) => q.where('app_id', 'in', appIds))
      .orderBy('position')
      .execute(),
    db
      .selectFrom('app_screenshots')
      .selectAll()
      .$if(some, (q) => q.where('app_id', 'in', appIds))
      .orderBy('position')
      .execute(),
    db
      .selectFrom('app_categories')
      .selectAll()
      .$if(some, (q) => q.where('app_id', 'in', appIds))
      .orderBy('position')
      .execute(),
    // In one order, so the means are summed alike whichever apps are read together.
    db
      .selectFrom('ratings')
      .select(['app_id', 'rating', 'rated_at'])
      .$if(some, (q) => q.where('app_id', 'in', appIds))
      .orderBy('id')
      .execute(),
    releasesFor(some ? { appIds } : null),
    db
      .selectFrom('releases')
      .select(['app_id', 'version', 'is_nightly', 'retirement_reason'])
      .where('retired_at', 'is not', null)
      .$if(some, (q) => q.where('app_id', 'in', appIds))
      .orderBy('id')
      .execute(),
  ]);
  const retiredOf = groupBy(retired, (r) => r.app_id);
  const byApp = <T extends { app_id: string }>(rows: readonly T[]) => groupBy(rows, (r) => r.app_id);
  const translationsOf = byApp(translations);
  const authorsOf = byApp(authors);
  const screenshotsOf = byApp(screenshots);
  const categoriesOf = byApp(categories);
  const ratingsOf = byApp(ratings);

  return apps.map((app) => {
    const appTranslations: Record<string, AppTranslation> = Object.fromEntries(
      (translationsOf.get(app.id) ?? []).map((t) => [
        t.language,
        { name: t.name, summary: t.summary, description: t.description },
      ]),
    );
    return {
      listingVersion: Number(app.listing_version),
      app: {
        id: app.id,
        isEnterpriseOnly: toBool(app.is_enterprise_only),
        categories: (categoriesOf.get(app.id) ?? []).map((c) => c.category_id),
        authors: (authorsOf.get(app.id) ?? []).map((a): Author => ({
          name: a.name,
          mail: a.mail,
          homepage: a.homepage,
        })),
        userDocs: app.user_docs,
        adminDocs: app.admin_docs,
        developerDocs: app.developer_docs,
        issueTracker: app.issue_tracker,
        website: app.website,
        discussion: app.discussion,
        created: app.created_at,
        lastModified: app.last_release_at ?? app.updated_at,
        screenshots: (screenshotsOf.get(app.id) ?? []).map((s): Screenshot => ({
          url: s.url,
          smallThumbnail: s.small_thumbnail,
        })),
        translations: appTranslations,
        isFeatured: toBool(app.is_featured),
        certificate: app.certificate,
        ...aggregateRatings(
          (ratingsOf.get(app.id) ?? []).map((r) => ({ rating: Number(r.rating), ratedAt: r.rated_at })),
          recentSince,
        ),
        ...statusFields(app, retiredOf.get(app.id) ?? []),
        releases: releasesOf(app.id),
      },
    };
  });
}

/** The app's deprecation, orphaning and retired releases, as fields present only where set. */
function statusFields(
  app: { deprecated_at: string | null; deprecation_reason: string; successor_id: string; orphaned_at: string | null },
  retired: ReadonlyArray<{ version: string; is_nightly: boolean | number; retirement_reason: string }>,
): AppStatusFields {
  return {
    ...(app.deprecated_at === null
      ? {}
      : {
          isDeprecated: true as const,
          deprecationReason: app.deprecation_reason,
          ...(app.successor_id === '' ? {} : { successor: app.successor_id }),
        }),
    ...(app.orphaned_at === null ? {} : { isOrphan: true as const }),
    ...(retired.length === 0
      ? {}
      : {
          retiredReleases: retired.map((r) => ({
            version: r.version,
            isNightly: toBool(r.is_nightly),
            reason: r.retirement_reason,
          })),
        }),
  };
}

/**
 * What the website's catalogue pages index of every listed app (browse/catalog-entry.ts): texts,
 * categories, flags, dates, the first screenshot, the rating aggregates and the distinct Nextcloud
 * ranges of its releases. No release rows, signatures or certificates: a fraction of
 * loadListedApps's work.
 */
export async function loadCatalogSources(db: Kysely<Database>, recentSince: string): Promise<EntrySource[]> {
  const apps = await db
    .selectFrom('apps')
    .select(['id', 'created_at', 'updated_at', 'last_release_at', 'is_featured', 'deprecated_at'])
    .where(hasRelease)
    .orderBy('id')
    .execute();
  const [translations, screenshots, categories, specs, ratings] = await Promise.all([
    db
      .selectFrom('app_translations')
      .select(['app_id', 'language', 'name', 'summary', 'description'])
      .orderBy('language')
      .execute(),
    db.selectFrom('app_screenshots').select(['app_id', 'url', 'small_thumbnail']).where('position', '=', 0).execute(),
    db.selectFrom('app_categories').select(['app_id', 'category_id']).orderBy('position').execute(),
    db
      .selectFrom('releases')
      .select(['app_id', 'platform_version_spec'])
      .where('retired_at', 'is', null)
      .distinct()
      .execute(),
    db.selectFrom('ratings').select(['app_id', 'rating', 'rated_at']).orderBy('id').execute(),
  ]);
  const translationsOf = groupBy(translations, (r) => r.app_id);
  const shotOf = new Map(screenshots.map((s) => [s.app_id, s.url]));
  const categoriesOf = groupBy(categories, (r) => r.app_id);
  const specsOf = groupBy(specs, (r) => r.app_id);
  const ratingsOf = groupBy(ratings, (r) => r.app_id);
  return apps.map((app): EntrySource => {
    const aggregate = aggregateRatings(
      (ratingsOf.get(app.id) ?? []).map((r) => ({ rating: Number(r.rating), ratedAt: r.rated_at })),
      recentSince,
    );
    return {
      id: app.id,
      translations: Object.fromEntries(
        (translationsOf.get(app.id) ?? []).map((t) => [
          t.language,
          { name: t.name, summary: t.summary, description: t.description },
        ]),
      ),
      categories: (categoriesOf.get(app.id) ?? []).map((c) => c.category_id),
      isFeatured: toBool(app.is_featured),
      isDeprecated: app.deprecated_at !== null,
      ratingOverall: aggregate.ratingOverall,
      ratingNumOverall: aggregate.ratingNumOverall,
      created: app.created_at,
      lastModified: app.last_release_at ?? app.updated_at,
      shot: shotOf.get(app.id) ?? null,
      platformVersionSpecs: (specsOf.get(app.id) ?? []).map((r) => r.platform_version_spec).sort(),
    };
  });
}

/** One listed app's page: the app as apps.json shows it, its ratings (newest first) and its raters' names; null when it is not listed. */
export async function loadAppDetails(
  db: Kysely<Database>,
  appId: string,
  recentSince: string,
): Promise<AppDetails | null> {
  const [found] = await loadAppsWithVersions(db, recentSince, [appId]);
  if (found === undefined) return null;
  const ratings = await loadRatingRows(db, appId);
  return { app: found.app, ratings, raterNames: await loadRaterNames(db, [...new Set(ratings.map((r) => r.user.id))]) };
}

/**
 * Ratings, newest first, with what the app page shows besides ratings.json: the rating's id, the
 * version it was given for, the owner's reply, and whether an administrator hid its comment (a
 * hidden comment is left out: the rating value stays).
 */
async function loadRatingRows(db: Kysely<Database>, appId?: string): Promise<PageRating[]> {
  const [ratings, comments] = await Promise.all([
    db
      .selectFrom('ratings')
      .innerJoin('users', 'users.id', 'ratings.user_id')
      .select([
        'ratings.id',
        'ratings.app_id',
        'ratings.rating',
        'ratings.rated_at',
        'ratings.app_version',
        'ratings.hidden_at',
        'ratings.reply',
        'users.id as user_id',
        'users.first_name',
        'users.last_name',
      ])
      .$if(appId !== undefined, (q) => q.where('ratings.app_id', '=', appId ?? ''))
      .orderBy('ratings.rated_at', 'desc')
      .orderBy('ratings.id', 'desc')
      .execute(),
    db
      .selectFrom('rating_translations')
      .selectAll()
      .$if(appId !== undefined, (q) =>
        q.where(
          'rating_id',
          'in',
          db
            .selectFrom('ratings')
            .select('id')
            .where('app_id', '=', appId ?? ''),
        ),
      )
      .orderBy('language')
      .execute(),
  ]);
  const commentsOf = groupBy(comments, (c) => Number(c.rating_id));
  return ratings.map((r) => {
    const hidden = r.hidden_at !== null;
    return {
      id: Number(r.id),
      rating: Number(r.rating),
      ratedAt: r.rated_at,
      translations: hidden
        ? {}
        : Object.fromEntries((commentsOf.get(Number(r.id)) ?? []).map((c) => [c.language, { comment: c.comment }])),
      user: { id: Number(r.user_id), firstName: r.first_name, lastName: r.last_name },
      app: r.app_id,
      appVersion: r.app_version,
      reply: hidden ? null : r.reply,
      hidden,
    };
  });
}

/** ratings.json: every rating, newest first; hidden comments left out (issue 54). */
export async function loadListedRatings(db: Kysely<Database>, appId?: string): Promise<ListedRating[]> {
  return (await loadRatingRows(db, appId)).map(({ rating, ratedAt, translations, user, app }) => ({
    rating,
    ratedAt,
    translations,
    user,
    app,
  }));
}

/** The names these raters are shown by on the website: first and last name when they gave one, else the username. */
export async function loadRaterNames(db: Kysely<Database>, userIds: readonly number[]): Promise<Map<number, string>> {
  if (userIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('users')
    .where('users.id', 'in', userIds)
    .select(['users.id', 'users.username', 'users.first_name', 'users.last_name'])
    .execute();
  return new Map(rows.map((row) => [Number(row.id), `${row.first_name} ${row.last_name}`.trim() || row.username]));
}

/** Each app's icon: its hash (its address) and whether it is drawn dark. */
export async function loadIconRefs(db: Kysely<Database>): Promise<Map<string, IconRef>> {
  const rows = await db.selectFrom('app_icons').select(['app_id', 'hash', 'dark']).execute();
  return new Map(rows.map((row) => [row.app_id, { hash: row.hash, dark: toBool(row.dark) }]));
}

/** The icon with this hash, as served; null when no app has it now. */
export async function findIcon(db: Kysely<Database>, hash: string): Promise<string | null> {
  const row = await db.selectFrom('app_icons').select('svg').where('hash', '=', hash).limit(1).executeTakeFirst();
  return row?.svg ?? null;
}
