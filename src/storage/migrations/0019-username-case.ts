import { sql } from 'kysely';
import type { Kysely } from 'kysely';

/**
 * Usernames are unique ignoring case (issue 49): `Admin` beside `admin` and `Alice` beside `alice`
 * were accepted, names a reader cannot tell apart on a page or in the audit log. The database
 * itself enforces it: a unique index on lower(username), on both databases (usernames are ASCII,
 * domain/accounts/manage-users.ts, so lower() is the same on both).
 *
 * Accounts that clash already are never merged nor renamed silently: each clash is named in the
 * migration's notes, and the index leaves the later accounts of a clash out (a partial index), so
 * they keep working while an administrator decides (disable or delete the impostor, or ask its
 * holder to sign up again). Nothing new may clash with any of them.
 */
export async function up(db: Kysely<unknown>): Promise<string[]> {
  const users = db as unknown as Kysely<{ users: { id: number | string | bigint; username: string } }>;
  const rows = await users.selectFrom('users').select(['id', 'username']).orderBy('id').execute();
  const byFolded = new Map<string, Array<{ id: number; username: string }>>();
  for (const row of rows) {
    const folded = row.username.toLowerCase();
    byFolded.set(folded, [...(byFolded.get(folded) ?? []), { id: Number(row.id), username: row.username }]);
  }
  const clashes = [...byFolded.values()].filter((group) => group.length > 1);
  const later = clashes.flatMap((group) => group.slice(1).map((user) => user.id));
  const leftOut = later.length === 0 ? sql`` : sql` where id not in (${sql.join(later.map((id) => sql.lit(id)))})`;
  await sql`create unique index users_username_folded on users (lower(username))${leftOut}`.execute(db);
  return clashes.map(
    (group) =>
      `usernames that differ only in case: ${group.map((user) => `${user.username} (id ${user.id})`).join(', ')}; kept as they are, and ${group[0]?.username} alone is matched by a name in another case. ` +
      'Disable or delete the look-alike (appstore user disable NAME), or ask its holder to sign up again under another name.',
  );
}
