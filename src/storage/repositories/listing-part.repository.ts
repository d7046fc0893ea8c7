import type { Insertable, Kysely } from 'kysely';
import type { AppPart } from '../../domain/listings/app-part.ts';
import { toBool } from '../schema.ts';
import type { Database } from '../schema.ts';

type Row = Insertable<Database['listing_parts']>;

/** The listing engine's saved parts of these apps in this format, whatever their listing version. */
export async function loadSavedParts(db: Kysely<Database>, ids: readonly string[], format: string): Promise<AppPart[]> {
  if (ids.length === 0) return [];
  const rows = await db.selectFrom('listing_parts').selectAll().where('format', '=', format).where('app_id', 'in', ids).execute();
  return rows.map(
    (row): AppPart => ({
      id: row.app_id,
      listingVersion: Number(row.listing_version),
      enterpriseOnly: toBool(row.enterprise_only),
      recentRatings: Number(row.recent_ratings),
      whole: { deflated: Buffer.from(row.deflated), crc: Number(row.crc), length: Number(row.text_length) },
      headLength: Number(row.head_length),
      releases: JSON.parse(row.releases) as AppPart['releases'],
      cuts: new Map(),
    }),
  );
}

const toRow = (part: AppPart, format: string): Row => ({
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
});

/**
 * Saves parts, each replacing the app's part in this format unless the one saved is newer (nodes
 * save concurrently), and removing their parts in other formats. One transaction for all; when that fails (an app deleted meanwhile, whose
 * part no longer has an app), each on its own, and those that still fail are left out.
 */
export async function saveParts(db: Kysely<Database>, parts: readonly AppPart[], format: string): Promise<void> {
  if (parts.length === 0) return;
  const upsert = (target: Kysely<Database>, part: AppPart) =>
    target
      .insertInto('listing_parts')
      .values(toRow(part, format))
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
          }))
          .where('listing_parts.listing_version', '<=', (eb) => eb.ref('excluded.listing_version')),
      )
      .execute();
  try {
    await db.transaction().execute(async (trx) => {
      // What other code made for these apps would only linger: it is never taken by this code.
      await trx.deleteFrom('listing_parts').where('format', '<>', format).where('app_id', 'in', parts.map((part) => part.id)).execute();
      for (const part of parts) await upsert(trx, part);
    });
  } catch {
    for (const part of parts) await upsert(db, part).catch(() => undefined);
  }
}
