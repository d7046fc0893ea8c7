import type { Kysely, Selectable } from 'kysely';
import type { ImageFormat, ScreenshotCopy, ScreenshotCopyStore } from '../../domain/screenshots/screenshot-copies.ts';
import { CONTENT_TYPES } from '../../domain/screenshots/screenshot-copies.ts';
import type { Database, ScreenshotCopiesTable } from '../schema.ts';

const FORMATS: ReadonlySet<string> = new Set(Object.keys(CONTENT_TYPES));

function toCopy(row: Selectable<ScreenshotCopiesTable>): ScreenshotCopy {
  return {
    url: row.url,
    sha256: row.sha256,
    format: row.format !== null && FORMATS.has(row.format) ? (row.format as ImageFormat) : null,
    width: row.width === null ? null : Number(row.width),
    height: row.height === null ? null : Number(row.height),
    thumbnailSha256: row.thumbnail_sha256,
    fetchedAt: row.fetched_at,
    problem: row.problem,
  };
}

/** The screenshot copies (domain/screenshots): not content of the listings, so no content version. */
export function screenshotCopyRepository(db: Kysely<Database>): ScreenshotCopyStore {
  /** The copies (and refusals) of screenshots an app lists now: only those are shown and served (a removed screenshot, a deleted app's, no longer). */
  const listed = () =>
    db.selectFrom('screenshot_copies').innerJoin('app_screenshots', 'app_screenshots.url', 'screenshot_copies.url');
  const served = () => listed().where('screenshot_copies.problem', 'is', null);
  return {
    async missing(retryBefore, limit) {
      const rows = await db
        .selectFrom('app_screenshots')
        .leftJoin('screenshot_copies', 'screenshot_copies.url', 'app_screenshots.url')
        .select('app_screenshots.url')
        .where((eb) =>
          eb.or([
            eb('screenshot_copies.url', 'is', null),
            eb.and([
              eb('screenshot_copies.problem', 'is not', null),
              eb('screenshot_copies.fetched_at', '<', retryBefore.toISOString()),
            ]),
          ]),
        )
        .distinct()
        .orderBy('app_screenshots.url')
        .limit(limit)
        .execute();
      return rows.map((row) => row.url);
    },
    async save(copy) {
      const values = {
        sha256: copy.sha256,
        format: copy.format,
        width: copy.width,
        height: copy.height,
        thumbnail_sha256: copy.thumbnailSha256,
        fetched_at: copy.fetchedAt,
        problem: copy.problem,
      };
      await db
        .insertInto('screenshot_copies')
        .values({ url: copy.url, ...values })
        .onConflict((oc) => oc.column('url').doUpdateSet(values))
        .execute();
    },
    async copies() {
      const rows = await listed().selectAll('screenshot_copies').distinct().execute();
      return new Map(rows.map((row) => [row.url, toCopy(row)]));
    },
    async servedType(sha256) {
      const image = await served()
        .select('screenshot_copies.format')
        .where('screenshot_copies.sha256', '=', sha256)
        .executeTakeFirst();
      if (image?.format !== undefined && image.format !== null && FORMATS.has(image.format))
        return CONTENT_TYPES[image.format as ImageFormat];
      const thumbnail = await served()
        .select('screenshot_copies.url')
        .where('screenshot_copies.thumbnail_sha256', '=', sha256)
        .executeTakeFirst();
      return thumbnail === undefined ? null : CONTENT_TYPES.webp;
    },
  };
}
