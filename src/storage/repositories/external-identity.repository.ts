import type { Kysely } from 'kysely';
import type {
  ExternalIdentityStore,
  FlowPurpose,
  NewIdentity,
  StoredFlow,
} from '../../domain/accounts/external-identity.ts';
import { formatTimestamp, parseTimestamp } from '../../domain/timestamps.ts';
import { isUniqueViolation } from '../database-errors.ts';
import { toBool } from '../schema.ts';
import type { Database } from '../schema.ts';
import { auditedWrite } from './audit.repository.ts';
import { createdUser, insertUser, toRecord, USER_COLUMNS } from './account.repository.ts';

const FLOW_COLUMNS = ['provider', 'purpose', 'user_id', 'binding_hash', 'data', 'expires_at'] as const;

function toFlow(row: {
  provider: string;
  purpose: string;
  user_id: number | null;
  binding_hash: string;
  data: string;
  expires_at: string;
}): StoredFlow {
  return {
    provider: row.provider,
    purpose: row.purpose as FlowPurpose,
    userId: row.user_id === null ? null : Number(row.user_id),
    bindingHash: row.binding_hash,
    data: row.data,
    expiresAt: parseTimestamp(row.expires_at),
  };
}

function insertIdentity(trx: Kysely<Database>, userId: number, identity: NewIdentity, now: Date) {
  const at = formatTimestamp(now);
  return trx
    .insertInto('external_identities')
    .values({
      user_id: userId,
      provider: identity.provider,
      subject: identity.subject,
      label: identity.label,
      admin_from_claim: identity.adminFromClaim,
      created_at: at,
      last_used_at: at,
    })
    .execute();
}

/** External identities and the sign-ins under way (migration 0014). */
export function externalIdentityRepository(db: Kysely<Database>): ExternalIdentityStore {
  return {
    async findUserByIdentity(provider, subject) {
      const row = await db
        .selectFrom('external_identities')
        .innerJoin('users', 'users.id', 'external_identities.user_id')
        .select([...USER_COLUMNS, 'external_identities.admin_from_claim'])
        .where('external_identities.provider', '=', provider)
        .where('external_identities.subject', '=', subject)
        .executeTakeFirst();
      return row === undefined ? null : { user: toRecord(row), adminFromClaim: toBool(row.admin_from_claim) };
    },

    async identitiesOf(userId) {
      const rows = await db
        .selectFrom('external_identities')
        .select(['provider', 'label', 'created_at', 'last_used_at'])
        .where('user_id', '=', userId)
        .orderBy('provider')
        .execute();
      return rows.map((row) => ({
        provider: row.provider,
        label: row.label,
        createdAt: parseTimestamp(row.created_at),
        lastUsedAt: parseTimestamp(row.last_used_at),
      }));
    },

    async createUserWithIdentity(user, identity, now, audit) {
      let userInserted = false;
      try {
        const id = await auditedWrite(db, audit, now, async (trx) => {
          const userId = await insertUser(trx, user, now);
          userInserted = true;
          await insertIdentity(trx, userId, identity, now);
          return { changed: true, result: userId };
        });
        return createdUser(user, id);
      } catch (error) {
        // Which insert failed tells what was taken: the name, or the identity (the same person's first sign-in finished twice at once).
        if (isUniqueViolation(error)) return userInserted ? 'identity-taken' : 'name-taken';
        throw error;
      }
    },

    async linkIdentity(userId, identity, now, audit) {
      try {
        await auditedWrite(db, audit, now, async (trx) => {
          await insertIdentity(trx, userId, identity, now);
          return { changed: true, result: undefined };
        });
        return 'linked';
      } catch (error) {
        if (isUniqueViolation(error)) return 'taken';
        throw error;
      }
    },

    async unlinkIdentity(userId, provider, usable, now, audit) {
      type Unlinked = { outcome: 'unlinked' | 'not-linked' | 'last-way-in'; adminFromClaim: boolean };
      return auditedWrite<Unlinked>(db, audit, now, async (trx) => {
        // Touching the user's row first makes concurrent unlinks of one user wait for each other (PostgreSQL's row lock; SQLite writes one at a time).
        await trx
          .updateTable('users')
          .set({ updated_at: formatTimestamp(now) })
          .where('id', '=', userId)
          .execute();
        const user = await trx.selectFrom('users').select('password_hash').where('id', '=', userId).executeTakeFirst();
        const identities = await trx
          .selectFrom('external_identities')
          .select(['provider', 'admin_from_claim'])
          .where('user_id', '=', userId)
          .execute();
        const identity = identities.find((row) => row.provider === provider);
        if (user === undefined || identity === undefined)
          return { changed: false, result: { outcome: 'not-linked', adminFromClaim: false } };
        const otherWaysIn = identities.filter(
          (row) => row.provider !== provider && usable.includes(row.provider),
        ).length;
        if (user.password_hash === null && otherWaysIn === 0)
          return { changed: false, result: { outcome: 'last-way-in', adminFromClaim: false } };
        await trx
          .deleteFrom('external_identities')
          .where('user_id', '=', userId)
          .where('provider', '=', provider)
          .execute();
        return { changed: true, result: { outcome: 'unlinked', adminFromClaim: toBool(identity.admin_from_claim) } };
      });
    },

    async recordSignIn(provider, subject, label, adminFromClaim, now) {
      await db
        .updateTable('external_identities')
        .set({ label, admin_from_claim: adminFromClaim, last_used_at: formatTimestamp(now) })
        .where('provider', '=', provider)
        .where('subject', '=', subject)
        .execute();
    },

    async insertFlow(keyHash, flow, now) {
      const values = {
        key_hash: keyHash,
        provider: flow.provider,
        purpose: flow.purpose,
        user_id: flow.userId,
        binding_hash: flow.bindingHash,
        data: flow.data,
        created_at: formatTimestamp(now),
        expires_at: formatTimestamp(flow.expiresAt),
      };
      // A browser's second first-sign-in replaces its first one's wait for a username.
      await db
        .insertInto('external_login_flows')
        .values(values)
        .onConflict((c) => c.column('key_hash').doUpdateSet(values))
        .execute();
    },

    async findFlow(keyHash) {
      const row = await db
        .selectFrom('external_login_flows')
        .select(FLOW_COLUMNS)
        .where('key_hash', '=', keyHash)
        .executeTakeFirst();
      return row === undefined ? null : toFlow(row);
    },

    async takeFlow(keyHash, bindingHash) {
      let statement = db.deleteFrom('external_login_flows').where('key_hash', '=', keyHash);
      if (bindingHash !== undefined) statement = statement.where('binding_hash', '=', bindingHash);
      const row = await statement.returning(FLOW_COLUMNS).executeTakeFirst();
      return row === undefined ? null : toFlow(row);
    },
  };
}
