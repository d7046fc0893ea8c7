import type { Kysely } from 'kysely';
import type { RatingStore } from '../../domain/ratings/rate-app.ts';
import type { Database } from '../schema.ts';
import { formatTimestamp } from '../../domain/timestamps.ts';
import { deleteInWriteTransaction, writeTransaction } from '../write-transaction.ts';
import { markAppsChanged } from './content-version.repository.ts';

/** Ratings change apps.json (aggregates) and ratings.json: every write bumps the content version. */
export function ratingRepository(db: Kysely<Database>): RatingStore {
  return {
    async upsertRating(appId, userId, rating, comments, now, audit) {
      const at = formatTimestamp(now);
      const { result } = await writeTransaction(
        db,
        now,
        async (trx) => {
          const existing = await trx
            .selectFrom('ratings')
            .select('id')
            .where('app_id', '=', appId)
            .where('user_id', '=', userId)
            .executeTakeFirst();
          // The version the rating is about: the app's newest release (not a nightly) as it is given.
          const current = await trx
            .selectFrom('releases')
            .select('version')
            .where('app_id', '=', appId)
            .where('is_nightly', '=', false)
            .orderBy('created_at', 'desc')
            .orderBy('id', 'desc')
            .limit(1)
            .executeTakeFirst();
          const app_version = current?.version ?? null;
          let ratingId: number;
          if (existing === undefined) {
            // A comment of this user on this app was hidden before: the new one starts hidden (issue 54).
            const mark = await trx
              .selectFrom('moderation_marks')
              .select('hidden_at')
              .where('app_id', '=', appId)
              .where('user_id', '=', userId)
              .executeTakeFirst();
            const row = await trx
              .insertInto('ratings')
              .values({
                app_id: appId,
                user_id: userId,
                rating,
                rated_at: at,
                updated_at: at,
                app_version,
                hidden_at: mark?.hidden_at ?? null,
              })
              .returning('id')
              .executeTakeFirstOrThrow();
            ratingId = Number(row.id);
          } else {
            ratingId = Number(existing.id);
            // The owner's reply answered the comment as it was: a changed comment loses it.
            const before = await trx
              .selectFrom('rating_translations')
              .select(['language', 'comment'])
              .where('rating_id', '=', ratingId)
              .execute();
            const same =
              before.length === Object.keys(comments).length &&
              before.every((row) => comments[row.language] === row.comment);
            await trx
              .updateTable('ratings')
              .set({
                rating,
                rated_at: at,
                updated_at: at,
                app_version,
                ...(same ? {} : { reply: null, reply_at: null }),
              })
              .where('id', '=', ratingId)
              .execute();
            await trx.deleteFrom('rating_translations').where('rating_id', '=', ratingId).execute();
          }
          const entries = Object.entries(comments);
          if (entries.length > 0)
            await trx
              .insertInto('rating_translations')
              .values(entries.map(([language, comment]) => ({ rating_id: ratingId, language, comment })))
              .execute();
          await markAppsChanged(trx, [appId]);
          return { changed: true, result: { created: existing === undefined } };
        },
        audit,
      );
      return result;
    },

    deleteRating: (appId, userId, now, audit) =>
      deleteInWriteTransaction(
        db,
        now,
        async (trx) => {
          const removed = await trx
            .deleteFrom('ratings')
            .where('app_id', '=', appId)
            .where('user_id', '=', userId)
            .executeTakeFirst();
          await markAppsChanged(trx, [appId]);
          return removed;
        },
        audit,
      ),
  };
}
