import type { Kysely, Selectable } from 'kysely';
import type { AccessToken, AccessTokenStore } from '../../domain/accounts/scoped-tokens.ts';
import { isTokenScope } from '../../domain/accounts/token-scopes.ts';
import type { CredentialKind, Provenance } from '../../domain/accounts/token-scopes.ts';
import { formatTimestamp, parseTimestamp } from '../../domain/timestamps.ts';
import type { AccessTokensTable, Database } from '../schema.ts';
import { toRecord, USER_COLUMNS } from './account.repository.ts';
import { auditedWrite } from './audit.repository.ts';

/** The token's own fields (with its id and user's beside them in TOKEN_COLUMNS). */
const TOKEN_FIELDS = [
  'access_tokens.kind',
  'access_tokens.name',
  'access_tokens.scopes',
  'access_tokens.apps',
  'access_tokens.created_at',
  'access_tokens.expires_at',
  'access_tokens.last_used_at',
  'access_tokens.provenance',
] as const;
const TOKEN_COLUMNS = ['access_tokens.id', 'access_tokens.user_id', ...TOKEN_FIELDS] as const;

type TokenRow = Omit<Selectable<AccessTokensTable>, 'lookup_hash'>;

function toToken(row: TokenRow): AccessToken {
  return {
    id: Number(row.id),
    userId: Number(row.user_id),
    kind: row.kind as CredentialKind,
    name: row.name,
    scopes: row.scopes.split(' ').filter(isTokenScope),
    apps: row.apps === null ? null : row.apps.split(' '),
    createdAt: parseTimestamp(row.created_at),
    expiresAt: parseTimestamp(row.expires_at),
    lastUsedAt: row.last_used_at === null ? null : parseTimestamp(row.last_used_at),
    provenance: row.provenance === null ? null : (JSON.parse(row.provenance) as Provenance),
  };
}

/** Scoped tokens and trusted publishing's (migration 0027); revoking deletes the row. */
export function accessTokenRepository(db: Kysely<Database>): AccessTokenStore {
  return {
    async insert(token, audit, now) {
      return auditedWrite(db, audit, now, async (trx) => {
        const row = await trx
          .insertInto('access_tokens')
          .values({
            user_id: token.userId,
            kind: token.kind,
            name: token.name,
            lookup_hash: token.lookupHash,
            scopes: token.scopes.join(' '),
            apps: token.apps === null ? null : token.apps.join(' '),
            created_at: formatTimestamp(token.createdAt),
            expires_at: formatTimestamp(token.expiresAt),
            provenance: token.provenance === null ? null : JSON.stringify(token.provenance),
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        return { changed: true, result: Number(row.id) };
      });
    },

    async findByHash(lookupHash) {
      const row = await db
        .selectFrom('access_tokens')
        .innerJoin('users', 'users.id', 'access_tokens.user_id')
        .select([...USER_COLUMNS, 'access_tokens.id as token_id', ...TOKEN_FIELDS])
        .where('access_tokens.lookup_hash', '=', lookupHash)
        .executeTakeFirst();
      if (row === undefined) return null;
      return { token: toToken({ ...row, id: row.token_id, user_id: row.id }), user: toRecord(row) };
    },

    async markUsed(id, now) {
      const aMinuteAgo = formatTimestamp(new Date(now.getTime() - 60_000));
      await db
        .updateTable('access_tokens')
        .set({ last_used_at: formatTimestamp(now) })
        .where('id', '=', id)
        .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', aMinuteAgo)]))
        .execute();
    },

    async list(userId, kind) {
      const rows = await db
        .selectFrom('access_tokens')
        .select(TOKEN_COLUMNS)
        .where('user_id', '=', userId)
        .where('kind', '=', kind)
        .orderBy('id', 'desc')
        .execute();
      return rows.map(toToken);
    },

    async revoke(userId, id, audit, now) {
      return auditedWrite(db, audit, now, async (trx) => {
        const result = await trx
          .deleteFrom('access_tokens')
          .where('id', '=', id)
          .where('user_id', '=', userId)
          .executeTakeFirst();
        const done = Number(result.numDeletedRows) > 0;
        return { changed: done, result: done };
      });
    },

    async revokeAll(userId, audit, now) {
      return auditedWrite(db, audit, now, async (trx) => {
        const scoped = await trx.deleteFrom('access_tokens').where('user_id', '=', userId).executeTakeFirst();
        const unscoped = await trx.deleteFrom('api_tokens').where('user_id', '=', userId).executeTakeFirst();
        const count = Number(scoped.numDeletedRows) + Number(unscoped.numDeletedRows);
        return { changed: count > 0, result: count };
      });
    },

    async revokeUnscoped(userId, audit, now) {
      return auditedWrite(db, audit, now, async (trx) => {
        const result = await trx.deleteFrom('api_tokens').where('user_id', '=', userId).executeTakeFirst();
        const done = Number(result.numDeletedRows) > 0;
        return { changed: done, result: done };
      });
    },
  };
}
