import type { Kysely } from 'kysely';
import type { Dialect } from '../database.ts';

/**
 * Each release's text as the app listings show it (UTF-8 bytes), written with the release (issue
 * 31): a render then reads one value per release, where it read the release's row and five tables
 * of its details and serialised them, and as bytes it is copied into the listing as it is, never
 * made a string. `listing_text_format` names how the text was made
 * (repositories/listed-release.repository.ts); a release without a text in the current format
 * (saved before this migration, or by another version of the store) is listed from its rows.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema.alterTable('releases').addColumn('listing_text', dialect === 'sqlite' ? 'blob' : 'bytea').execute();
  await db.schema.alterTable('releases').addColumn('listing_text_format', 'text', (c) => c.notNull().defaultTo('')).execute();
}
