import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Dialect } from '../database.ts';

/**
 * Where PostgreSQL keeps the listings' bytes (issue 55). SQLite needs nothing: its rows are kept
 * whole, in pages of their own when they are long.
 *
 * - A release's listing text (about 1.3 KB at the bench's catalogue, its signature in base64
 *   half of it) made its row longer than the 2 KB past which PostgreSQL moves long values out of
 *   the row. It tried to compress the text first (which fails: it saves less than a quarter) and
 *   then stored it in the TOAST table: every release listed was read through that table's index
 *   and a second heap. Rows up to 8,160 bytes now stay whole (`toast_tuple_target`, the most an
 *   8 KiB page allows); a longer text (a release with long changelogs in many languages) is
 *   still compressed or moved as before. Texts already written move into their rows when they
 *   are written again (a new release, a new text format).
 * - A saved listing part is deflated already: PostgreSQL's compression of it only cost the
 *   server's time on every save (about 50 ms of a 600-app start's saves) and kept nothing.
 *   `external` keeps it out of the row, uncompressed.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`alter table releases set (toast_tuple_target = 8160)`.execute(db);
  await sql`alter table listing_parts alter column deflated set storage external`.execute(db);
}
