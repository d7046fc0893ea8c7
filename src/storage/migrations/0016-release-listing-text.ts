import type { Kysely } from 'kysely';
import type { Dialect } from '../database.ts';

/**
 * Each release's text as the app listings show it (UTF-8 bytes), written with the release (issue
 * 31): a render then reads one value per release, where it read the release's row and five tables
 * of its details and serialised them, and as bytes it is copied into the listing as it is, never
 * made a string. `listing_text_format` names how the text was made
 * (repositories/listed-release.repository.ts), and `listing_text_updated_at` the release's
 * `updated_at` it was made from: every write of a release sets `updated_at`, this version's and
 * earlier ones' (which know nothing of the text, during a rolling upgrade or after a rollback),
 * so a text is taken only while both still match. Otherwise the release is listed from its rows.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .alterTable('releases')
    .addColumn('listing_text', dialect === 'sqlite' ? 'blob' : 'bytea')
    .execute();
  await db.schema
    .alterTable('releases')
    .addColumn('listing_text_format', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema.alterTable('releases').addColumn('listing_text_updated_at', 'text').execute();
}
