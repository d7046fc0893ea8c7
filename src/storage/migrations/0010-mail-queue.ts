import type { Kysely } from 'kysely';
import type { Dialect } from '../database.ts';

/**
 * The account mails' queue (issue 25): a request records the mail it asks for (a job: which
 * kind, for which address or account) and answers; the mail is made and sent after the answer,
 * so the answer's timing no longer tells whether an address has an account, and a crash loses
 * nothing. No link and no mail text is stored: the links are made when the job is delivered.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('mail_queue')
    .addColumn('id', dialect === 'sqlite' ? 'integer' : 'bigserial', (c) =>
      dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey(),
    )
    // The job as JSON: {kind, email?, userId?, newAccount?}.
    .addColumn('job', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    // Until when a process has it (null: nobody).
    .addColumn('claimed_until', 'text')
    .execute();
  await db.schema.createIndex('mail_queue_next_attempt_at').on('mail_queue').column('next_attempt_at').execute();
}
