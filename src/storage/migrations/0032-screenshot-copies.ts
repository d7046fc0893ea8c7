import type { Kysely } from 'kysely';

/**
 * The store's copies of screenshots (issue 54): per screenshot URL, the image and the thumbnail
 * made from it (their hashes in the archive storage), its format and size; or why it could not be
 * copied (tried again a day later).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('screenshot_copies')
    .addColumn('url', 'text', (c) => c.primaryKey())
    .addColumn('sha256', 'text')
    .addColumn('format', 'text')
    .addColumn('width', 'integer')
    .addColumn('height', 'integer')
    .addColumn('thumbnail_sha256', 'text')
    .addColumn('fetched_at', 'text', (c) => c.notNull())
    .addColumn('problem', 'text')
    .execute();
  await db.schema.createIndex('screenshot_copies_sha256').on('screenshot_copies').column('sha256').execute();
  await db.schema
    .createIndex('screenshot_copies_thumbnail')
    .on('screenshot_copies')
    .column('thumbnail_sha256')
    .execute();
}
