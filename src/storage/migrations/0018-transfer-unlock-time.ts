import { sql } from 'kysely';
import type { Kysely } from 'kysely';

/**
 * When an app was unlocked for transfer (issue 49): the certificates the store's authority issued
 * for its id to others while it was unlocked are revoked when the unlock ends, so they must be
 * told from those issued before. Apps unlocked before this migration take their last change as
 * the start (the unlock was their last change unless something else changed them since).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('apps').addColumn('transfer_unlocked_at', 'text').execute();
  await sql`update apps set transfer_unlocked_at = updated_at where transfer_unlocked = ${true}`.execute(db);
}
