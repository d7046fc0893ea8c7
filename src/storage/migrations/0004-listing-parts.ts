import type { Kysely } from 'kysely';
import type { Dialect } from '../database.ts';

/**
 * The listing engine's parts, kept in the database (issue 15): each listed app's apps.json text,
 * compressed, as of its listing version. A node that starts reads them instead of reading,
 * serialising and compressing every app again, and the parts stay consistent with the data they
 * were made from (a restored backup brings its own). Derived data: a row may be deleted at any
 * time and is made again. `format` names the serialisation that made it, so a node running other
 * code never takes a part it would not have made.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('listing_parts')
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('listing_version', 'integer', (c) => c.notNull())
    .addColumn('recent_ratings', 'integer', (c) => c.notNull())
    .addColumn('enterprise_only', 'boolean', (c) => c.notNull())
    .addColumn('head_length', 'integer', (c) => c.notNull())
    // Each release's [start, end) in the text and its Nextcloud range, as JSON.
    .addColumn('releases', 'text', (c) => c.notNull())
    .addColumn('crc', 'bigint', (c) => c.notNull())
    .addColumn('text_length', 'integer', (c) => c.notNull())
    .addColumn('deflated', dialect === 'sqlite' ? 'blob' : 'bytea', (c) => c.notNull())
    .addPrimaryKeyConstraint('listing_parts_pk', ['app_id', 'format'])
    .execute();
}
