import type { Kysely } from 'kysely';
import type { RateLimitStore } from '../../domain/rate-limit.ts';
import type { Database } from '../schema.ts';
import { parseTimestamp, formatTimestamp } from '../../domain/timestamps.ts';

/** Rate-limit hits in the database, so every node sharing it counts the same. */
export function rateLimitRepository(db: Kysely<Database>): RateLimitStore {
  return {
    async countSince(bucket, subject, since) {
      const row = await db
        .selectFrom('rate_limit_hits')
        .select((eb) => [eb.fn.countAll<number | string>().as('count'), eb.fn.min('hit_at').as('oldest')])
        .where('bucket', '=', bucket)
        .where('subject', '=', subject)
        .where('hit_at', '>', formatTimestamp(since))
        .executeTakeFirst();
      const oldest = row?.oldest ?? null;
      return { count: Number(row?.count ?? 0), oldest: oldest === null ? null : parseTimestamp(String(oldest)) };
    },

    async record(bucket, subject, at, pruneBefore) {
      await db.transaction().execute(async (trx) => {
        await trx
          .deleteFrom('rate_limit_hits')
          .where('bucket', '=', bucket)
          .where('subject', '=', subject)
          .where('hit_at', '<=', formatTimestamp(pruneBefore))
          .execute();
        await trx
          .insertInto('rate_limit_hits')
          .values({ bucket, subject, hit_at: formatTimestamp(at) })
          .execute();
      });
    },

    async clear(bucket, subject) {
      await db.deleteFrom('rate_limit_hits').where('bucket', '=', bucket).where('subject', '=', subject).execute();
    },
  };
}
