import type { Kysely } from 'kysely';
import type { PublishJobState, PublishJobStore } from '../../domain/releases/publish-jobs.ts';
import { formatTimestamp, parseTimestamp } from '../../domain/timestamps.ts';
import { toBool } from '../schema.ts';
import type { Database } from '../schema.ts';

/** Publishes started from the developer pages (`publish_jobs`). */
export function publishJobRepository(db: Kysely<Database>): PublishJobStore {
  return {
    async create(job, now) {
      await db
        .insertInto('publish_jobs')
        .values({
          id: job.id,
          user_id: job.userId,
          download: job.download,
          nightly: job.nightly,
          status: 'running',
          outcome: null,
          created_at: formatTimestamp(now),
          finished_at: null,
        })
        .execute();
    },
    async finish(id, state, now) {
      const { status, ...outcome } = state;
      await db
        .updateTable('publish_jobs')
        .set({ status, outcome: JSON.stringify(outcome), finished_at: formatTimestamp(now) })
        .where('id', '=', id)
        .where('status', '=', 'running')
        .execute();
    },
    async find(id) {
      const row = await db.selectFrom('publish_jobs').selectAll().where('id', '=', id).executeTakeFirst();
      if (row === undefined) return null;
      const state = (
        row.status === 'running'
          ? { status: 'running' }
          : { status: row.status, ...(JSON.parse(row.outcome ?? '{}') as object) }
      ) as PublishJobState;
      return {
        id: row.id,
        userId: Number(row.user_id),
        download: row.download,
        nightly: toBool(row.nightly),
        state,
        createdAt: parseTimestamp(row.created_at),
        finishedAt: row.finished_at === null ? null : parseTimestamp(row.finished_at),
      };
    },
  };
}
