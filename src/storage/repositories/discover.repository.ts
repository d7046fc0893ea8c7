import type { Kysely, Transaction } from 'kysely';
import type { DiscoverEntry } from '../../domain/discover/discover-document.ts';
import type { DiscoverStore } from '../../domain/discover/manage-discover.ts';
import { formatTimestamp } from '../../domain/timestamps.ts';
import type { Database } from '../schema.ts';
import { writeTransaction } from '../write-transaction.ts';

/** The stored entries, in their order (inside a snapshot or a write, as the caller needs). */
export async function loadDiscoverEntries(db: Kysely<Database>): Promise<DiscoverEntry[]> {
  const rows = await db.selectFrom('discover_entries').select('body').orderBy('position').execute();
  return rows.map((row) => JSON.parse(row.body) as DiscoverEntry);
}

/** Replaces every entry inside the caller's write transaction; false (nothing written) when they are the same. */
export async function writeDiscoverEntries(
  trx: Transaction<Database>,
  entries: readonly DiscoverEntry[],
  now: Date,
): Promise<boolean> {
  const bodies = entries.map((entry) => JSON.stringify(entry));
  const stored = await trx.selectFrom('discover_entries').select('body').orderBy('position').execute();
  if (stored.length === bodies.length && stored.every((row, index) => row.body === bodies[index])) return false;
  await trx.deleteFrom('discover_entries').execute();
  const at = formatTimestamp(now);
  if (entries.length > 0) {
    await trx
      .insertInto('discover_entries')
      .values(
        entries.map((entry, position) => ({
          position,
          entry_id: entry.id,
          body: bodies[position] ?? '',
          imported_at: at,
        })),
      )
      .execute();
  }
  return true;
}

export function discoverRepository(db: Kysely<Database>): DiscoverStore {
  return {
    async appIds() {
      return new Set((await db.selectFrom('apps').select('id').execute()).map((row) => row.id));
    },

    async replaceEntries(entries, now, audit) {
      const { result } = await writeTransaction(
        db,
        now,
        async (trx) => {
          const changed = await writeDiscoverEntries(trx, entries, now);
          return { changed, result: { changed } };
        },
        audit,
      );
      return result;
    },

    entries: () => loadDiscoverEntries(db),
  };
}
