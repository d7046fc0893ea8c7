import { sql } from 'kysely';
import type { Kysely, Transaction } from 'kysely';
import type { TwoFactorRequirement, TwoFactorStore } from '../../domain/accounts/two-factor-store.ts';
import { formatTimestamp, parseTimestamp } from '../../domain/timestamps.ts';
import type { Database } from '../schema.ts';
import { auditedWrite } from './audit.repository.ts';
import { storeSettingsRepository } from './store-settings.repository.ts';
import { isUniqueViolation } from '../database-errors.ts';

const REQUIREMENT = 'two-factor-required';

/** Sets `users.two_factor` from what the user has now: a confirmed authenticator app or a passkey. */
async function refreshFlag(trx: Transaction<Database>, userId: number): Promise<boolean> {
  const totp = await trx
    .selectFrom('totp_secrets')
    .select('user_id')
    .where('user_id', '=', userId)
    .where('confirmed_at', 'is not', null)
    .executeTakeFirst();
  const passkey = await trx.selectFrom('passkeys').select('id').where('user_id', '=', userId).executeTakeFirst();
  const on = totp !== undefined || passkey !== undefined;
  await trx.updateTable('users').set({ two_factor: on }).where('id', '=', userId).execute();
  if (!on) await trx.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
  return on;
}

async function insertCodes(trx: Transaction<Database>, userId: number, hashes: readonly string[], at: string) {
  if (hashes.length === 0) return;
  await trx.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
  await trx
    .insertInto('recovery_codes')
    .values(hashes.map((hash) => ({ code_hash: hash, user_id: userId, created_at: at })))
    .execute();
}

/** Two-factor sign-in's storage (migration 0029). */
export function twoFactorRepository(db: Kysely<Database>): TwoFactorStore {
  // The requirement is a store setting like the others (audited only when it changes).
  const settings = storeSettingsRepository(db);
  return {
    async totp(userId) {
      const row = await db.selectFrom('totp_secrets').selectAll().where('user_id', '=', userId).executeTakeFirst();
      if (row === undefined) return null;
      return { sealed: row.sealed_secret, confirmed: row.confirmed_at !== null, lastStep: Number(row.last_step) };
    },

    async startTotp(userId, sealed, now) {
      await db.deleteFrom('totp_secrets').where('user_id', '=', userId).where('confirmed_at', 'is', null).execute();
      await db
        .insertInto('totp_secrets')
        .values({ user_id: userId, sealed_secret: sealed, created_at: formatTimestamp(now) })
        .onConflict((oc) => oc.column('user_id').doNothing())
        .execute();
    },

    async confirmTotp(userId, step, recovery, now, audit) {
      await auditedWrite(db, audit, now, async (trx) => {
        await trx
          .updateTable('totp_secrets')
          .set({ confirmed_at: formatTimestamp(now), last_step: step })
          .where('user_id', '=', userId)
          .execute();
        await insertCodes(trx, userId, recovery, formatTimestamp(now));
        await refreshFlag(trx, userId);
        return { changed: true, result: undefined };
      });
    },

    async useTotpStep(userId, step) {
      const result = await db
        .updateTable('totp_secrets')
        .set({ last_step: step })
        .where('user_id', '=', userId)
        .where('last_step', '<', step)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async removeTotp(userId, now, audit) {
      return auditedWrite(db, audit, now, async (trx) => {
        const result = await trx.deleteFrom('totp_secrets').where('user_id', '=', userId).executeTakeFirst();
        const done = Number(result.numDeletedRows) > 0;
        if (done) await refreshFlag(trx, userId);
        return { changed: done, result: done };
      });
    },

    async recoveryCodesLeft(userId) {
      const row = await db
        .selectFrom('recovery_codes')
        .select(sql<number>`count(*)`.as('left'))
        .where('user_id', '=', userId)
        .where('used_at', 'is', null)
        .executeTakeFirst();
      return Number(row?.left ?? 0);
    },

    async replaceRecoveryCodes(userId, hashes, now, audit) {
      await auditedWrite(db, audit, now, async (trx) => {
        await insertCodes(trx, userId, hashes, formatTimestamp(now));
        return { changed: true, result: undefined };
      });
    },

    async useRecoveryCode(userId, hash, now, audit) {
      return auditedWrite(db, audit, now, async (trx) => {
        const result = await trx
          .updateTable('recovery_codes')
          .set({ used_at: formatTimestamp(now) })
          .where('code_hash', '=', hash)
          .where('user_id', '=', userId)
          .where('used_at', 'is', null)
          .executeTakeFirst();
        const used = Number(result.numUpdatedRows) > 0;
        return { changed: used, result: used };
      });
    },

    async passkeys(userId) {
      const rows = await db.selectFrom('passkeys').selectAll().where('user_id', '=', userId).orderBy('id').execute();
      return rows.map((row) => ({
        id: Number(row.id),
        userId: Number(row.user_id),
        credentialId: row.credential_id,
        publicKey: row.public_key,
        counter: Number(row.counter),
        transports: row.transports === '' ? [] : row.transports.split(' '),
        name: row.name,
        createdAt: parseTimestamp(row.created_at),
        lastUsedAt: row.last_used_at === null ? null : parseTimestamp(row.last_used_at),
      }));
    },

    async addPasskey(passkey, recovery, now, audit) {
      try {
        return await auditedWrite(db, audit, now, async (trx) => {
          await trx
            .insertInto('passkeys')
            .values({
              user_id: passkey.userId,
              credential_id: passkey.credentialId,
              public_key: passkey.publicKey,
              counter: passkey.counter,
              transports: passkey.transports.join(' '),
              name: passkey.name,
              created_at: formatTimestamp(now),
            })
            .execute();
          await insertCodes(trx, passkey.userId, recovery, formatTimestamp(now));
          await refreshFlag(trx, passkey.userId);
          return { changed: true, result: true };
        });
      } catch (error) {
        if (isUniqueViolation(error)) return false;
        throw error;
      }
    },

    async usePasskey(id, counter, now) {
      await db
        .updateTable('passkeys')
        .set({ counter, last_used_at: formatTimestamp(now) })
        .where('id', '=', id)
        .execute();
    },

    async removePasskey(userId, id, now, audit) {
      return auditedWrite(db, audit, now, async (trx) => {
        const result = await trx
          .deleteFrom('passkeys')
          .where('id', '=', id)
          .where('user_id', '=', userId)
          .executeTakeFirst();
        const done = Number(result.numDeletedRows) > 0;
        if (done) await refreshFlag(trx, userId);
        return { changed: done, result: done };
      });
    },

    async createChallenge(idHash, userId, purpose, next, expiresAt, challenge) {
      await db
        .insertInto('pending_challenges')
        .values({
          id_hash: idHash,
          user_id: userId,
          purpose,
          next,
          expires_at: formatTimestamp(expiresAt),
          challenge: challenge ?? null,
        })
        .execute();
    },

    async findChallenge(idHash, purpose, now) {
      const row = await db
        .selectFrom('pending_challenges')
        .select(['user_id', 'challenge', 'next'])
        .where('id_hash', '=', idHash)
        .where('purpose', '=', purpose)
        .where('expires_at', '>', formatTimestamp(now))
        .executeTakeFirst();
      return row === undefined ? null : { userId: Number(row.user_id), challenge: row.challenge, next: row.next };
    },

    async setChallenge(idHash, challenge) {
      await db.updateTable('pending_challenges').set({ challenge }).where('id_hash', '=', idHash).execute();
    },

    async deleteChallenge(idHash) {
      await db.deleteFrom('pending_challenges').where('id_hash', '=', idHash).execute();
    },

    async finishSignIn(idHash, audit, now) {
      await auditedWrite(db, audit, now, async (trx) => {
        await trx.deleteFrom('pending_challenges').where('id_hash', '=', idHash).execute();
        return { changed: true, result: undefined };
      });
    },

    async requirement() {
      const value = await settings.get(REQUIREMENT);
      return value === 'admins' || value === 'maintainers' ? value : 'none';
    },

    async setRequirement(requirement: TwoFactorRequirement, now, audit) {
      await settings.set(REQUIREMENT, requirement, now, audit);
    },

    async ownsApps(userId) {
      const row = await db.selectFrom('apps').select('id').where('owner_id', '=', userId).executeTakeFirst();
      return row !== undefined;
    },
  };
}
