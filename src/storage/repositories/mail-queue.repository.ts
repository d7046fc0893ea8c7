import type { Kysely } from 'kysely';
import type { AccountMailJob } from '../../domain/accounts/mail-jobs.ts';
import type { MailQueueStore } from '../../domain/mail-queue.ts';
import { formatTimestamp } from '../../domain/timestamps.ts';
import type { Database } from '../schema.ts';

export function mailQueueRepository(db: Kysely<Database>): MailQueueStore {
  return {
    async add(job, now) {
      const at = formatTimestamp(now);
      const row = await db
        .insertInto('mail_queue')
        .values({ job: JSON.stringify(job), created_at: at, next_attempt_at: at })
        .returning('id')
        .executeTakeFirstOrThrow();
      return Number(row.id);
    },
    async due(now, limit, ids) {
      if (ids !== undefined && ids.length === 0) return [];
      const at = formatTimestamp(now);
      const rows = await db
        .selectFrom('mail_queue')
        .select(['id', 'job', 'attempts'])
        .where('next_attempt_at', '<=', at)
        .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', at)]))
        .$if(ids !== undefined, (q) => q.where('id', 'in', ids ?? []))
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map((row) => ({
        id: Number(row.id),
        job: JSON.parse(row.job) as AccountMailJob,
        attempts: Number(row.attempts),
      }));
    },
    async claim(id, now, until) {
      const at = formatTimestamp(now);
      // One statement: of processes racing for a job, one updates the row.
      const claimed = await db
        .updateTable('mail_queue')
        .set((eb) => ({ claimed_until: formatTimestamp(until), attempts: eb('attempts', '+', 1) }))
        .where('id', '=', id)
        .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', at)]))
        .executeTakeFirst();
      return Number(claimed.numUpdatedRows) > 0;
    },
    async remove(id) {
      await db.deleteFrom('mail_queue').where('id', '=', id).execute();
    },
    async later(id, next) {
      await db
        .updateTable('mail_queue')
        .set({ claimed_until: null, next_attempt_at: formatTimestamp(next) })
        .where('id', '=', id)
        .execute();
    },
  };
}
