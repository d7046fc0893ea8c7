import type { Kysely, Transaction } from 'kysely';
import type { ModeratedRating, ModerationStore } from '../../domain/ratings/moderation.ts';
import { formatTimestamp } from '../../domain/timestamps.ts';
import { insertAudit } from '../audit-row.ts';
import type { Database } from '../schema.ts';
import { writeTransaction } from '../write-transaction.ts';
import { markAppsChanged } from './content-version.repository.ts';

/**
 * Reports, replies and administrators' decisions on ratings (issue 54). What changes ratings.json
 * or the app page (hiding, restoring, a reply, removing a rating) bumps the content version; a
 * report or a dismissal changes no listing and is only audited.
 */
export function moderationRepository(db: Kysely<Database>): ModerationStore {
  const rated = (q: Kysely<Database> | Transaction<Database>) =>
    q
      .selectFrom('ratings')
      .innerJoin('users', 'users.id', 'ratings.user_id')
      .select([
        'ratings.id',
        'ratings.app_id',
        'ratings.user_id',
        'users.username',
        'ratings.rating',
        'ratings.rated_at',
        'ratings.app_version',
        'ratings.hidden_at',
        'ratings.reply',
      ]);
  type Row = Awaited<ReturnType<ReturnType<typeof rated>['execute']>>[number];

  async function withComments(rows: readonly Row[]): Promise<ModeratedRating[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((row) => Number(row.id));
    const comments = await db
      .selectFrom('rating_translations')
      .select(['rating_id', 'language', 'comment'])
      .where('rating_id', 'in', ids)
      .execute();
    return rows.map((row) => ({
      id: Number(row.id),
      appId: row.app_id,
      userId: Number(row.user_id),
      username: row.username,
      rating: Number(row.rating),
      ratedAt: row.rated_at,
      appVersion: row.app_version,
      comments: Object.fromEntries(
        comments.filter((c) => Number(c.rating_id) === Number(row.id)).map((c) => [c.language, c.comment]),
      ),
      hiddenAt: row.hidden_at,
      reply: row.reply,
    }));
  }

  /** A change to what ratings.json or the app page shows: in a write transaction, with its audit entry. */
  const listingChange = async (
    ratingId: number,
    now: Date,
    audit: Parameters<ModerationStore['setReply']>[3],
    change: (trx: Transaction<Database>, at: string, rating: { app_id: string; user_id: number }) => Promise<void>,
  ): Promise<void> => {
    await writeTransaction(
      db,
      now,
      async (trx) => {
        const row = await trx
          .selectFrom('ratings')
          .select(['app_id', 'user_id'])
          .where('id', '=', ratingId)
          .executeTakeFirst();
        if (row === undefined) return { changed: false, result: undefined };
        await change(trx, formatTimestamp(now), row);
        await markAppsChanged(trx, [row.app_id]);
        return { changed: true, result: undefined };
      },
      audit,
    );
  };

  const settle = (trx: Transaction<Database>, ratingId: number, resolution: string, at: string) =>
    trx
      .updateTable('rating_reports')
      .set({ resolution, resolved_at: at })
      .where('rating_id', '=', ratingId)
      .where('resolved_at', 'is', null)
      .execute();

  return {
    async findRating(ratingId) {
      const row = await rated(db).where('ratings.id', '=', ratingId).executeTakeFirst();
      return row === undefined ? null : ((await withComments([row]))[0] ?? null);
    },

    async addReport(ratingId, reporterId, reason, now, audit) {
      return db.transaction().execute(async (trx) => {
        // One waiting report per user and comment; one settled before (the comment was hidden,
        // shown again, changed…) is opened again with the new reason.
        const at = formatTimestamp(now);
        const inserted = await trx
          .insertInto('rating_reports')
          .values({ rating_id: ratingId, reporter_id: reporterId, reason, created_at: at })
          .onConflict((oc) =>
            oc
              .columns(['rating_id', 'reporter_id'])
              .doUpdateSet({ reason, created_at: at, resolution: null, resolved_at: null })
              .where('rating_reports.resolved_at', 'is not', null),
          )
          .executeTakeFirst();
        if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return false;
        await insertAudit(trx, audit, now);
        return true;
      });
    },

    setReply: (ratingId, reply, now, audit) =>
      listingChange(ratingId, now, audit, async (trx, at) => {
        await trx
          .updateTable('ratings')
          .set({ reply, reply_at: reply === null ? null : at })
          .where('id', '=', ratingId)
          .execute();
      }),

    setHidden: (ratingId, hidden, now, audit) =>
      listingChange(ratingId, now, audit, async (trx, at, rating) => {
        await trx
          .updateTable('ratings')
          .set({ hidden_at: hidden ? at : null })
          .where('id', '=', ratingId)
          .execute();
        // The decision is kept for the user and app too: deleting the rating and rating again does not undo it.
        if (hidden) {
          await settle(trx, ratingId, 'hidden', at);
          await trx
            .insertInto('moderation_marks')
            .values({ app_id: rating.app_id, user_id: Number(rating.user_id), hidden_at: at })
            .onConflict((oc) => oc.columns(['app_id', 'user_id']).doUpdateSet({ hidden_at: at }))
            .execute();
        } else
          await trx
            .deleteFrom('moderation_marks')
            .where('app_id', '=', rating.app_id)
            .where('user_id', '=', Number(rating.user_id))
            .execute();
      }),

    async dismissReports(ratingId, now, audit) {
      await db.transaction().execute(async (trx) => {
        await settle(trx, ratingId, 'dismissed', formatTimestamp(now));
        await insertAudit(trx, audit, now);
      });
    },

    removeRating: (ratingId, now, audit) =>
      listingChange(ratingId, now, audit, async (trx) => {
        await trx.deleteFrom('ratings').where('id', '=', ratingId).execute();
      }),

    async setRatingBlocked(userId, blocked, now, audit) {
      await db.transaction().execute(async (trx) => {
        await trx
          .updateTable('users')
          .set({ rating_blocked_at: blocked ? formatTimestamp(now) : null })
          .where('id', '=', userId)
          .execute();
        await insertAudit(trx, audit, now);
      });
    },

    async queue() {
      const reports = await db
        .selectFrom('rating_reports')
        .innerJoin('users', 'users.id', 'rating_reports.reporter_id')
        .select(['rating_reports.rating_id', 'users.username', 'rating_reports.reason', 'rating_reports.created_at'])
        .where('rating_reports.resolved_at', 'is', null)
        .orderBy('rating_reports.created_at')
        .orderBy('rating_reports.id')
        .limit(1000)
        .execute();
      const ids = [...new Set(reports.map((r) => Number(r.rating_id)))];
      if (ids.length === 0) return [];
      const ratings = await withComments(await rated(db).where('ratings.id', 'in', ids).execute());
      const byId = new Map(ratings.map((rating) => [rating.id, rating]));
      return ids.flatMap((id) => {
        const rating = byId.get(id);
        return rating === undefined
          ? []
          : [
              {
                rating,
                reports: reports
                  .filter((r) => Number(r.rating_id) === id)
                  .map((r) => ({ reporter: r.username, reason: r.reason, at: r.created_at })),
              },
            ];
      });
    },

    async hiddenComments() {
      return withComments(
        await rated(db)
          .where('ratings.hidden_at', 'is not', null)
          .orderBy('ratings.hidden_at', 'desc')
          .limit(200)
          .execute(),
      );
    },

    async blockedRaters() {
      const rows = await db
        .selectFrom('users')
        .select(['id', 'username', 'rating_blocked_at'])
        .where('rating_blocked_at', 'is not', null)
        .orderBy('username')
        .execute();
      return rows.map((row) => ({ id: Number(row.id), username: row.username, since: row.rating_blocked_at ?? '' }));
    },

    async isRatingBlocked(userId) {
      const row = await db.selectFrom('users').select('rating_blocked_at').where('id', '=', userId).executeTakeFirst();
      return row?.rating_blocked_at !== null && row?.rating_blocked_at !== undefined;
    },
  };
}
