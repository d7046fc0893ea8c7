import type { Kysely } from 'kysely';
import type { SubscriptionKeyStore } from '../../domain/listings/subscription-keys.ts';
import { formatTimestamp } from '../../domain/timestamps.ts';
import type { Database } from '../schema.ts';
import { insertAudit } from '../audit-row.ts';

/** Subscription keys by their hash; adding and revoking are audited in the same transaction. */
export function subscriptionKeyRepository(db: Kysely<Database>): SubscriptionKeyStore {
  return {
    async add(label, keyHash, now, audit) {
      return db.transaction().execute(async (trx) => {
        const row = await trx
          .insertInto('subscription_keys')
          .values({ label, key_hash: keyHash, created_at: formatTimestamp(now) })
          .returning('id')
          .executeTakeFirstOrThrow();
        await insertAudit(trx, audit, now);
        return Number(row.id);
      });
    },
    async revoke(id, now, audit) {
      return db.transaction().execute(async (trx) => {
        const updated = await trx
          .updateTable('subscription_keys')
          .set({ revoked_at: formatTimestamp(now) })
          .where('id', '=', id)
          .where('revoked_at', 'is', null)
          .executeTakeFirst();
        const done = Number(updated.numUpdatedRows) > 0;
        if (done) await insertAudit(trx, audit, now);
        return done;
      });
    },
    async list() {
      const rows = await db
        .selectFrom('subscription_keys')
        .select(['id', 'label', 'created_at', 'revoked_at'])
        .orderBy('id')
        .execute();
      return rows.map((r) => ({ id: Number(r.id), label: r.label, createdAt: r.created_at, revokedAt: r.revoked_at }));
    },
    async isValid(keyHash) {
      const row = await db
        .selectFrom('subscription_keys')
        .select('id')
        .where('key_hash', '=', keyHash)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return row !== undefined;
    },
  };
}
