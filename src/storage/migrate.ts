import { randomBytes } from 'node:crypto';
import { Migrator, sql } from 'kysely';
import type { Kysely, Migration, MigrationProvider, MigrationResult } from 'kysely';
import type { DatabaseHandle, Dialect } from './database.ts';
import * as initial from './migrations/0001-initial.ts';
import { nowTimestamp } from './timestamps.ts';

type Step = { up(db: Kysely<unknown>, dialect: Dialect): Promise<void> };

/** Every migration, in order. A new step is a new file here; applied steps are never edited. */
const STEPS: ReadonlyArray<readonly [string, Step]> = [['0001-initial', initial]];

class StaticProvider implements MigrationProvider {
  constructor(private readonly dialect: Dialect) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    return Object.fromEntries(
      STEPS.map(([name, step]) => [name, { up: (db: Kysely<unknown>) => step.up(db, this.dialect) }]),
    );
  }
}

export async function currentSchema(handle: DatabaseHandle): Promise<string> {
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(handle.db);
  const schema = rows[0]?.schema;
  if (schema === undefined || schema === null) throw new Error('PostgreSQL has no current schema: check search_path');
  return schema;
}

export interface MigrationReport {
  readonly applied: string[];
}

/** Applies every pending migration in one run, then makes sure the content version row exists. */
export async function migrateToLatest(handle: DatabaseHandle): Promise<MigrationReport> {
  const migrator = new Migrator({
    db: handle.db,
    provider: new StaticProvider(handle.dialect),
    // Name the schema explicitly: without it, Kysely would take migration tables of another
    // schema in the same database for ours.
    ...(handle.dialect === 'postgres' ? { migrationTableSchema: await currentSchema(handle) } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((result: MigrationResult) => result.status === 'Error');
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`migration ${failed?.migrationName ?? '(unknown)'} failed: ${reason}`);
  }
  await handle.db
    .insertInto('content_version')
    .values({ id: 1, version: 1, changed_at: nowTimestamp(), instance_id: randomBytes(6).toString('hex') })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
  return { applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}
