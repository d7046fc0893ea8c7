import type { Insertable, Kysely } from 'kysely';
import { internBounds } from '../../domain/versions/semantic-version.ts';
import type { SavedPart } from '../../domain/listings/app-part.ts';
import type { CopyColumn, CopyParameter } from '../postgres-binary-copy.ts';
import type { CopyRows } from '../postgres-copy-out.ts';
import { toBool } from '../schema.ts';
import type { Database } from '../schema.ts';

type Row = Insertable<Database['listing_parts']>;

/** A saved part's columns as read, by either path. */
interface PartRow {
  app_id: string;
  listing_version: number | string;
  recent_ratings: number | string;
  enterprise_only: number | boolean;
  head_length: number | string;
  releases: string;
  crc: number | string | bigint;
  text_length: number | string;
  deflated: Uint8Array;
  checksum: string;
}

const PART_COLUMNS = [
  ['app_id', 'text'],
  ['listing_version', 'int4'],
  ['recent_ratings', 'int4'],
  ['enterprise_only', 'bool'],
  ['head_length', 'int4'],
  ['releases', 'text'],
  ['crc', 'int8'],
  ['text_length', 'int4'],
  ['deflated', 'bytea'],
  ['checksum', 'text'],
] as const satisfies readonly (readonly [keyof PartRow, CopyColumn])[];

/**
 * The listing engine's saved parts of these apps in this format, whatever their listing version.
 * On PostgreSQL through binary COPY when the handle offers it (`copyRows`): the parts are most of
 * what a restart reads (12 MB of deflated bytes at 600 apps), and a query's result would send them
 * as hex for the driver to decode (issue 55; docs/benchmarks.md).
 */
export async function loadSavedParts(
  db: Kysely<Database>,
  ids: readonly string[],
  format: string,
  copyRows: CopyRows | null = null,
): Promise<SavedPart[]> {
  if (ids.length === 0) return [];
  const query = db
    .selectFrom('listing_parts')
    .select(PART_COLUMNS.map(([name]) => name))
    .where('format', '=', format)
    .where('app_id', 'in', ids);
  let rows: PartRow[];
  if (copyRows === null) rows = await query.execute();
  else {
    const { sql, parameters } = query.compile();
    const arrays = await copyRows(
      sql,
      parameters as CopyParameter[],
      PART_COLUMNS.map(([, type]) => type),
    );
    rows = arrays.map(
      (values) => Object.fromEntries(PART_COLUMNS.map(([name], i) => [name, values[i]])) as unknown as PartRow,
    );
  }
  return rows.map((row): SavedPart => ({
    id: row.app_id,
    listingVersion: Number(row.listing_version),
    enterpriseOnly: toBool(row.enterprise_only),
    recentRatings: Number(row.recent_ratings),
    whole: {
      deflated: Buffer.isBuffer(row.deflated) ? row.deflated : Buffer.from(row.deflated),
      crc: Number(row.crc),
      length: Number(row.text_length),
    },
    headLength: Number(row.head_length),
    releases: (JSON.parse(row.releases) as SavedPart['releases']).map((release) => ({
      ...release,
      bounds: internBounds(release.bounds),
    })),
    cuts: new Map(),
    checksum: row.checksum,
  }));
}

const toRow = (part: SavedPart, format: string): Row => ({
  app_id: part.id,
  format,
  listing_version: part.listingVersion,
  recent_ratings: part.recentRatings,
  enterprise_only: part.enterpriseOnly,
  head_length: part.headLength,
  releases: JSON.stringify(part.releases),
  crc: part.whole.crc,
  text_length: part.whole.length,
  deflated: part.whole.deflated,
  checksum: part.checksum,
});

/**
 * Saves parts, each replacing the app's part in this format unless the one saved is newer (nodes
 * save concurrently). Parts in other formats stay: a node running another version may use them
 * (removeUnusedPartFormats prunes them once none does). One statement for all (one round trip on
 * PostgreSQL: a statement per part made a batch of 16 take tens of milliseconds, and a store
 * stopped a second or two after its first start had saved only part of its catalogue). When it
 * fails (an app deleted meanwhile, whose part no longer has an app; or one app twice, which
 * PostgreSQL refuses in one statement), each on its own, and those
 * that still fail are left out.
 */
export async function saveParts(db: Kysely<Database>, parts: readonly SavedPart[], format: string): Promise<void> {
  if (parts.length === 0) return;
  const upsert = (rows: Row[]) =>
    db
      .insertInto('listing_parts')
      .values(rows)
      .onConflict((conflict) =>
        conflict
          .columns(['app_id', 'format'])
          .doUpdateSet((eb) => ({
            listing_version: eb.ref('excluded.listing_version'),
            recent_ratings: eb.ref('excluded.recent_ratings'),
            enterprise_only: eb.ref('excluded.enterprise_only'),
            head_length: eb.ref('excluded.head_length'),
            releases: eb.ref('excluded.releases'),
            crc: eb.ref('excluded.crc'),
            text_length: eb.ref('excluded.text_length'),
            deflated: eb.ref('excluded.deflated'),
            checksum: eb.ref('excluded.checksum'),
          }))
          .where('listing_parts.listing_version', '<=', (eb) => eb.ref('excluded.listing_version')),
      )
      .execute();
  const rows = parts.map((part) => toRow(part, format));
  try {
    await upsert(rows);
  } catch {
    for (const row of rows) await upsert([row]).catch(() => undefined);
  }
}

/** Records that a node uses this part format now (every few minutes, from each node). */
export async function markPartFormatInUse(db: Kysely<Database>, format: string, now: string): Promise<void> {
  await db
    .insertInto('listing_part_formats')
    .values({ format, seen_at: now })
    .onConflict((conflict) => conflict.column('format').doUpdateSet({ seen_at: now }))
    .execute();
}

/**
 * Removes the parts of formats no node has marked since `before` (an upgrade has finished), and
 * those formats, and the parts saved before formats were marked (no checksum: no node of this
 * version takes them). A format not marked yet (a node that just started) keeps its parts. The
 * parts removed.
 */
export async function removeUnusedPartFormats(db: Kysely<Database>, before: string): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const stale = trx.selectFrom('listing_part_formats').select('format').where('seen_at', '<', before);
    const removed = await trx
      .deleteFrom('listing_parts')
      .where((eb) => eb.or([eb('format', 'in', stale), eb('checksum', '=', '')]))
      .executeTakeFirst();
    await trx.deleteFrom('listing_part_formats').where('seen_at', '<', before).execute();
    return Number(removed.numDeletedRows);
  });
}
