import type { Kysely } from 'kysely';
import type { HousekeepingStore } from '../../domain/housekeeping.ts';
import { formatTimestamp, parseTimestamp } from '../../domain/timestamps.ts';
import type { Database } from '../schema.ts';
import { markPartFormatInUse, removeUnusedPartFormats } from './listing-part.repository.ts';

export function housekeepingRepository(db: Kysely<Database>): HousekeepingStore {
  return {
    async takeLease(task, holder, now, until) {
      const at = formatTimestamp(now);
      await db
        .insertInto('housekeeping_leases')
        .values({ task, holder: '', lease_until: at, last_run_at: null })
        .onConflict((oc) => oc.column('task').doNothing())
        .execute();
      // One statement: of nodes racing for an expired lease, one updates the row.
      const taken = await db
        .updateTable('housekeeping_leases')
        .set({ holder, lease_until: formatTimestamp(until) })
        .where('task', '=', task)
        .where((eb) => eb.or([eb('lease_until', '<=', at), eb('holder', '=', holder)]))
        .executeTakeFirst();
      const row = await db
        .selectFrom('housekeeping_leases')
        .select('last_run_at')
        .where('task', '=', task)
        .executeTakeFirstOrThrow();
      return {
        taken: Number(taken.numUpdatedRows) > 0,
        lastRunAt: row.last_run_at === null ? null : parseTimestamp(row.last_run_at),
      };
    },

    async release(task, holder, ranAt) {
      await db
        .updateTable('housekeeping_leases')
        .set({
          lease_until: formatTimestamp(new Date(0)),
          ...(ranAt === null ? {} : { last_run_at: formatTimestamp(ranAt) }),
        })
        .where('task', '=', task)
        .where('holder', '=', holder)
        .execute();
    },

    async pruneSessions(now) {
      return Number(
        (await db.deleteFrom('sessions').where('expires_at', '<=', formatTimestamp(now)).executeTakeFirst())
          .numDeletedRows,
      );
    },
    async pruneLinks(now) {
      return Number(
        (await db.deleteFrom('account_links').where('expires_at', '<=', formatTimestamp(now)).executeTakeFirst())
          .numDeletedRows,
      );
    },
    async pruneLoginFlows(now) {
      return (
        Number(
          (
            await db
              .deleteFrom('external_login_flows')
              .where('expires_at', '<=', formatTimestamp(now))
              .executeTakeFirst()
          ).numDeletedRows,
        ) +
        Number(
          (await db.deleteFrom('pending_challenges').where('expires_at', '<=', formatTimestamp(now)).executeTakeFirst())
            .numDeletedRows,
        )
      );
    },
    async pruneRateLimitHits(before) {
      return Number(
        (await db.deleteFrom('rate_limit_hits').where('hit_at', '<=', formatTimestamp(before)).executeTakeFirst())
          .numDeletedRows,
      );
    },
    async prunePublishJobs(before) {
      return Number(
        (await db.deleteFrom('publish_jobs').where('created_at', '<=', formatTimestamp(before)).executeTakeFirst())
          .numDeletedRows,
      );
    },
    async pruneTokens(personalBefore, publishingBefore, now) {
      const used = await db
        .deleteFrom('used_id_tokens')
        .where('expires_at', '<=', formatTimestamp(now))
        .executeTakeFirst();
      const result = await db
        .deleteFrom('access_tokens')
        .where((eb) =>
          eb.or([
            eb.and([eb('kind', '=', 'personal'), eb('expires_at', '<=', formatTimestamp(personalBefore))]),
            eb.and([eb('kind', '=', 'publishing'), eb('expires_at', '<=', formatTimestamp(publishingBefore))]),
          ]),
        )
        .executeTakeFirst();
      return Number(result.numDeletedRows) + Number(used.numDeletedRows);
    },
    markPartFormatInUse: (format, now) => markPartFormatInUse(db, format, formatTimestamp(now)),
    prunePartFormats: (before) => removeUnusedPartFormats(db, formatTimestamp(before)),
  };
}
