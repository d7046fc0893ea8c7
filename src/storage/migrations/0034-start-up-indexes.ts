import { sql } from 'kysely';
import type { Kysely } from 'kysely';

/**
 * Two reads every start makes, before or just after its port opens, scanned the whole releases
 * table, listing texts and all (issue 55; 600 apps, 19,800 releases):
 * - the Nextcloud versions of each app's live releases, for the website's catalogue
 *   (`loadCatalogSources`): 60 ms, now 5;
 * - the releases whose archive the store keeps, to follow a changed public URL
 *   (`followPublicUrl`): 34 ms, now nothing when none is kept.
 * Both indexes are partial: they hold only the rows those reads want.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('releases_live_specs')
    .on('releases')
    .columns(['app_id', 'platform_version_spec'])
    .where(sql.ref('retired_at'), 'is', null)
    .execute();
  await db.schema
    .createIndex('releases_kept_archives')
    .on('releases')
    .column('id')
    .where(sql.ref('developer_download'), 'is not', null)
    .execute();
}
