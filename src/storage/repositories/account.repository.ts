import { sql } from 'kysely';
import type { Kysely, Selectable } from 'kysely';
import { toUser } from '../../domain/accounts/user.ts';
import type { AccountStore, NewUser, StoredLink, StoredSession, User, UserRecord } from '../../domain/accounts/user.ts';
import { deleteInWriteTransaction } from '../write-transaction.ts';
import { auditedWrite } from './audit.repository.ts';
import { markAppsChanged } from './content-version.repository.ts';
import { isUniqueViolation } from '../database-errors.ts';
import { toBool } from '../schema.ts';
import type { Database, UsersTable } from '../schema.ts';
import { parseTimestamp, formatTimestamp } from '../../domain/timestamps.ts';

export type UserRow = Selectable<
  Pick<
    UsersTable,
    | 'id'
    | 'username'
    | 'email'
    | 'first_name'
    | 'last_name'
    | 'password_hash'
    | 'is_admin'
    | 'is_active'
    | 'email_verified_at'
    | 'two_factor'
    | 'language'
  >
>;

export const USER_COLUMNS = [
  'users.id',
  'users.username',
  'users.email',
  'users.first_name',
  'users.last_name',
  'users.password_hash',
  'users.is_admin',
  'users.is_active',
  'users.email_verified_at',
  'users.two_factor',
  'users.language',
] as const;

/** Inserts the user's row and returns its id. */
export async function insertUser(trx: Kysely<Database>, user: NewUser, now: Date): Promise<number> {
  const at = formatTimestamp(now);
  const row = await trx
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
      email_verified_at: user.emailVerified && user.email !== null ? at : null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

/** The user as just created. */
export function createdUser(user: NewUser, id: number): User {
  const { passwordHash, ...rest } = user;
  return {
    ...rest,
    id,
    isActive: true,
    hasPassword: passwordHash !== null,
    emailVerified: user.emailVerified && user.email !== null,
  };
}

/** A user row as the accounts code sees it. */
export function toRecord(row: UserRow): UserRecord {
  return {
    id: Number(row.id),
    username: row.username,
    email: row.email,
    firstName: row.first_name,
    lastName: row.last_name,
    isAdmin: toBool(row.is_admin),
    isActive: toBool(row.is_active),
    hasPassword: row.password_hash !== null,
    emailVerified: row.email_verified_at !== null,
    twoFactor: toBool(row.two_factor),
    language: row.language,
    passwordHash: row.password_hash,
  };
}

function toLink(row: { user_id: number; purpose: string; email: string | null; expires_at: string }): StoredLink {
  return {
    userId: Number(row.user_id),
    purpose: row.purpose,
    email: row.email,
    expiresAt: parseTimestamp(row.expires_at),
  };
}

const LINK_COLUMNS = ['user_id', 'purpose', 'email', 'expires_at'] as const;

/**
 * Users, API tokens and sessions. None of these writes changes a listing, so they do not bump
 * the content version.
 */
export function accountRepository(db: Kysely<Database>): AccountStore {
  return {
    async findUserByUsername(username) {
      // Unique ignoring case (migration 0019): the name as typed in any case finds its account. Of
      // the look-alikes a clash left from before, the exact name wins; none is guessed.
      const rows = await db
        .selectFrom('users')
        .select(USER_COLUMNS)
        .where(sql<string>`lower(username)`, '=', username.toLowerCase())
        .limit(8)
        .execute();
      const row =
        rows.find((candidate) => candidate.username === username) ?? (rows.length === 1 ? rows[0] : undefined);
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

    async setLanguage(userId, language) {
      await db
        .updateTable('users')
        .set({ language })
        .where('id', '=', userId)
        .where((eb) => eb.or([eb('language', 'is', null), eb('language', '!=', language)]))
        .execute();
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

    async createUser(user, now, audit) {
      try {
        const id = await auditedWrite(db, audit, now, async (trx) => ({
          changed: true,
          result: await insertUser(trx, user, now),
        }));
        return createdUser(user, id);
      } catch (error) {
        if (isUniqueViolation(error)) return null;
        throw error;
      }
    },

    async setPasswordHash(userId, passwordHash, now, audit) {
      await auditedWrite(db, audit, now, async (trx) => {
        const updated = await trx
          .updateTable('users')
          .set({ password_hash: passwordHash, updated_at: formatTimestamp(now) })
          .where('id', '=', userId)
          .executeTakeFirst();
        return { changed: Number(updated.numUpdatedRows) > 0, result: undefined };
      });
    },

    async setActive(userId, active, now, audit) {
      await auditedWrite(db, audit, now, async (trx) => {
        const updated = await trx
          .updateTable('users')
          .set({ is_active: active, updated_at: formatTimestamp(now) })
          .where('id', '=', userId)
          .where('is_active', '=', !active)
          .executeTakeFirst();
        return { changed: Number(updated.numUpdatedRows) > 0, result: undefined };
      });
    },

    async setAdmin(userId, admin, now, audit) {
      await auditedWrite(db, audit, now, async (trx) => {
        const updated = await trx
          .updateTable('users')
          .set({ is_admin: admin, updated_at: formatTimestamp(now) })
          .where('id', '=', userId)
          .where('is_admin', '=', !admin)
          .executeTakeFirst();
        return { changed: Number(updated.numUpdatedRows) > 0, result: undefined };
      });
    },

    async searchUsers(text, limit) {
      const pattern = `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      let select = db.selectFrom('users').select(USER_COLUMNS);
      if (text !== '') {
        select = select.where((eb) =>
          eb.or([
            eb(sql<string>`lower(username)`, 'like', sql<string>`${pattern} escape '\\'`),
            eb(sql<string>`lower(coalesce(email, ''))`, 'like', sql<string>`${pattern} escape '\\'`),
          ]),
        );
      }
      const rows = await select.orderBy('username').limit(limit).execute();
      return rows.map((row): User => toUser(toRecord(row)));
    },

    async findUserById(userId) {
      const row = await db.selectFrom('users').select(USER_COLUMNS).where('id', '=', userId).executeTakeFirst();
      return row === undefined ? null : toRecord(row);
    },

    async findUsersByEmail(email) {
      const rows = await db
        .selectFrom('users')
        .select(USER_COLUMNS)
        .where(sql<string>`lower(email)`, '=', email.toLowerCase())
        .orderBy('id')
        .execute();
      return rows.map(toRecord);
    },

    async setVerifiedEmail(userId, email, now, audit) {
      const at = formatTimestamp(now);
      await auditedWrite(db, audit, now, async (trx) => {
        const updated = await trx
          .updateTable('users')
          .set({ email, email_verified_at: at, updated_at: at })
          .where('id', '=', userId)
          .executeTakeFirst();
        return { changed: Number(updated.numUpdatedRows) > 0, result: undefined };
      });
    },

    async deleteUserUnlessOwner(userId, now, audit) {
      // Ratings go with the user, and ratings.json shows them: one write transaction, which also
      // keeps an app from being registered to the user between the check and the delete.
      let ownedApps: string[] = [];
      const deleted = await deleteInWriteTransaction(
        db,
        now,
        async (trx) => {
          ownedApps = (
            await trx.selectFrom('apps').select('id').where('owner_id', '=', userId).orderBy('id').execute()
          ).map((row) => row.id);
          if (ownedApps.length > 0) return { numDeletedRows: 0n };
          // The user's ratings go too: the rating aggregates of the apps they rated change.
          const rated = await trx.selectFrom('ratings').select('app_id').where('user_id', '=', userId).execute();
          await markAppsChanged(
            trx,
            rated.map((row) => row.app_id),
          );
          return trx.deleteFrom('users').where('id', '=', userId).executeTakeFirst();
        },
        audit,
      );
      return { deleted, ownedApps };
    },

    async insertLink(secretHash, link, now) {
      await db
        .insertInto('account_links')
        .values({
          secret_hash: secretHash,
          user_id: link.userId,
          purpose: link.purpose,
          email: link.email,
          created_at: formatTimestamp(now),
          expires_at: formatTimestamp(link.expiresAt),
        })
        .execute();
    },

    async findLink(secretHash) {
      const row = await db
        .selectFrom('account_links')
        .select(LINK_COLUMNS)
        .where('secret_hash', '=', secretHash)
        .executeTakeFirst();
      return row === undefined ? null : toLink(row);
    },

    async takeLink(secretHash) {
      const row = await db
        .deleteFrom('account_links')
        .where('secret_hash', '=', secretHash)
        .returning(LINK_COLUMNS)
        .executeTakeFirst();
      return row === undefined ? null : toLink(row);
    },

    async deleteLinks(userId, purpose) {
      await db.deleteFrom('account_links').where('user_id', '=', userId).where('purpose', '=', purpose).execute();
    },

    async deleteUserSessions(userId) {
      await db.deleteFrom('sessions').where('user_id', '=', userId).execute();
    },

    async findEncryptedToken(userId) {
      const row = await db
        .selectFrom('api_tokens')
        .select('encrypted_token')
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return row?.encrypted_token ?? null;
    },

    async insertTokenIfNone(userId, lookupHash, encrypted, now, audit) {
      return auditedWrite(db, audit, now, async (trx) => {
        const result = await trx
          .insertInto('api_tokens')
          .values({
            user_id: userId,
            lookup_hash: lookupHash,
            encrypted_token: encrypted,
            created_at: formatTimestamp(now),
          })
          .onConflict((oc) => oc.column('user_id').doNothing())
          .executeTakeFirst();
        const inserted = Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
        return { changed: inserted, result: inserted };
      });
    },

    async replaceToken(userId, lookupHash, encrypted, now, audit) {
      await auditedWrite(db, audit, now, async (trx) => ({
        changed: true,
        result: await trx
          .insertInto('api_tokens')
          .values({
            user_id: userId,
            lookup_hash: lookupHash,
            encrypted_token: encrypted,
            created_at: formatTimestamp(now),
          })
          .onConflict((oc) =>
            oc.column('user_id').doUpdateSet({
              lookup_hash: lookupHash,
              encrypted_token: encrypted,
              created_at: formatTimestamp(now),
              last_used_at: null,
            }),
          )
          .execute(),
      }));
    },

    async createSession(idHash, userId, csrfTokenHash, now, expiresAt) {
      await db
        .insertInto('sessions')
        .values({
          id_hash: idHash,
          user_id: userId,
          csrf_token_hash: csrfTokenHash,
          created_at: formatTimestamp(now),
          expires_at: formatTimestamp(expiresAt),
        })
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
  };
}
