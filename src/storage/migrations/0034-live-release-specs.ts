import { sql } from 'kysely';
import type { Kysely } from 'kysely';

/**
 * The Nextcloud versions each app's live releases support, read by every start for the website's
 * catalogue (`loadCatalogSources`): without an index it scanned the whole releases table, listing
 * texts and all (60 ms at 600 apps and 19,800 releases, before the port opened; issue 55). This
 * partial index holds just the pair, for releases that are not retired.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('releases_live_specs')
    .on('releases')
    .columns(['app_id', 'platform_version_spec'])
    .where(sql.ref('retired_at'), 'is', null)
    .execute();
}
