import type { Kysely, Selectable } from 'kysely';
import { toUser } from '../../domain/accounts/user.ts';
import type { AccountStore, StoredSession, User, UserRecord } from '../../domain/accounts/user.ts';
import { isUniqueViolation } from '../database-errors.ts';
import { toBool } from '../schema.ts';
import type { Database, UsersTable } from '../schema.ts';
import { parseTimestamp, formatTimestamp } from '../../domain/timestamps.ts';

type UserRow = Selectable<Pick<UsersTable, 'id' | 'username' | 'email' | 'first_name' | 'last_name' | 'password_hash' | 'is_admin' | 'is_active'>>;

const USER_COLUMNS = ['users.id', 'users.username', 'users.email', 'users.first_name', 'users.last_name', 'users.password_hash', 'users.is_admin', 'users.is_active'] as const;

function toRecord(row: UserRow): UserRecord {
  return {
    id: Number(row.id),
    username: row.username,
    email: row.email,
    firstName: row.first_name,
    lastName: row.last_name,
    isAdmin: toBool(row.is_admin),
    isActive: toBool(row.is_active),
    hasPassword: row.password_hash !== null,
    passwordHash: row.password_hash,
  };
}

/**
 * Users, API tokens and sessions. None of these writes changes a listing, so they do not bump
 * the content version.
 */
export function accountRepository(db: Kysely<Database>): AccountStore {
  return {
    async findUserByUsername(username) {
      const row = await db.selectFrom('users').select(USER_COLUMNS).where('username', '=', username).executeTakeFirst();
      return row === undefined ? null : toRecord(row);
    },

    async findUserByTokenHash(lookupHash) {
      const row = await db
        .selectFrom('api_tokens')
        .innerJoin('users', 'users.id', 'api_tokens.user_id')
        .select(USER_COLUMNS)
        .where('api_tokens.lookup_hash', '=', lookupHash)
        .executeTakeFirst();
      return row === undefined ? null : toRecord(row);
    },

    async markTokenUsed(lookupHash, now) {
      const at = formatTimestamp(now);
      const aMinuteAgo = formatTimestamp(new Date(now.getTime() - 60_000));
      await db
        .updateTable('api_tokens')
        .set({ last_used_at: at })
        .where('lookup_hash', '=', lookupHash)
        .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', aMinuteAgo)]))
        .execute();
    },

    async listUsers() {
      const rows = await db.selectFrom('users').select(USER_COLUMNS).orderBy('username').execute();
      return rows.map((row): User => toUser(toRecord(row)));
    },

    async createUser(user, now) {
      const at = formatTimestamp(now);
      try {
        const row = await db
          .insertInto('users')
          .values({
            username: user.username,
            email: user.email,
            first_name: user.firstName,
            last_name: user.lastName,
            password_hash: user.passwordHash,
            is_admin: user.isAdmin,
            is_active: true,
            created_at: at,
            updated_at: at,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        const { passwordHash, ...rest } = user;
        return { ...rest, id: Number(row.id), isActive: true, hasPassword: passwordHash !== null };
      } catch (error) {
        if (isUniqueViolation(error)) return null;
        throw error;
      }
    },

    async setPasswordHash(userId, passwordHash, now) {
      await db.updateTable('users').set({ password_hash: passwordHash, updated_at: formatTimestamp(now) }).where('id', '=', userId).execute();
    },

    async setActive(userId, active, now) {
      await db.updateTable('users').set({ is_active: active, updated_at: formatTimestamp(now) }).where('id', '=', userId).execute();
    },

    async findEncryptedToken(userId) {
      const row = await db.selectFrom('api_tokens').select('encrypted_token').where('user_id', '=', userId).executeTakeFirst();
      return row?.encrypted_token ?? null;
    },

    async insertTokenIfNone(userId, lookupHash, encrypted, now) {
      const result = await db
        .insertInto('api_tokens')
        .values({ user_id: userId, lookup_hash: lookupHash, encrypted_token: encrypted, created_at: formatTimestamp(now) })
        .onConflict((oc) => oc.column('user_id').doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
    },

    async replaceToken(userId, lookupHash, encrypted, now) {
      await db
        .insertInto('api_tokens')
        .values({ user_id: userId, lookup_hash: lookupHash, encrypted_token: encrypted, created_at: formatTimestamp(now) })
        .onConflict((oc) =>
          oc.column('user_id').doUpdateSet({ lookup_hash: lookupHash, encrypted_token: encrypted, created_at: formatTimestamp(now), last_used_at: null }),
        )
        .execute();
    },

    async createSession(idHash, userId, csrfTokenHash, now, expiresAt) {
      await db
        .insertInto('sessions')
        .values({ id_hash: idHash, user_id: userId, csrf_token_hash: csrfTokenHash, created_at: formatTimestamp(now), expires_at: formatTimestamp(expiresAt) })
        .execute();
    },

    async findSession(idHash, now): Promise<StoredSession | null> {
      const row = await db
        .selectFrom('sessions')
        .innerJoin('users', 'users.id', 'sessions.user_id')
        .select([...USER_COLUMNS, 'sessions.csrf_token_hash', 'sessions.expires_at'])
        .where('sessions.id_hash', '=', idHash)
        .where('sessions.expires_at', '>', formatTimestamp(now))
        .executeTakeFirst();
      if (row === undefined) return null;
      return { user: toRecord(row), csrfTokenHash: row.csrf_token_hash, expiresAt: parseTimestamp(row.expires_at) };
    },

    async deleteSession(idHash) {
      await db.deleteFrom('sessions').where('id_hash', '=', idHash).execute();
    },

    async deleteExpiredSessions(now) {
      await db.deleteFrom('sessions').where('expires_at', '<=', formatTimestamp(now)).execute();
    },
  };
}
