import type { Provenance } from '../../domain/accounts/token-scopes.ts';
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Kysely, Selectable } from 'kysely';
import type { AppApiFields, ListedRelease } from '../../domain/listings/app-listing.ts';
import { releaseText } from '../../domain/listings/app-listing.ts';
import { appApiFields } from '../../domain/releases/external-app.ts';
import type { EnvironmentVariable } from '../../domain/releases/external-app.ts';
import type { Dependency } from '../../domain/releases/release-data.ts';
import { toBool } from '../schema.ts';
import type { Database, ReleaseDependencyTable, ReleaseExternalAppsTable, ReleasesTable } from '../schema.ts';

/** The release columns the listings show: not the archive's hash and size, nor the written listing text. */
export const LISTED_RELEASE_COLUMNS = [
  'id',
  'app_id',
  'version',
  'is_nightly',
  'download',
  'signature',
  'signature_digest',
  'php_version_spec',
  'raw_php_version_spec',
  'platform_version_spec',
  'raw_platform_version_spec',
  'min_int_size',
  'created_at',
  'updated_at',
  'provenance',
] as const;

export type ListedReleaseRow = Pick<Selectable<ReleasesTable>, (typeof LISTED_RELEASE_COLUMNS)[number]>;

type DependencyRow = Pick<
  Selectable<ReleaseDependencyTable>,
  'release_id' | 'name' | 'version_spec' | 'raw_version_spec'
>;

/** What releases list besides their rows, by release id, each in the order it is listed in. */
export interface ReleaseDetails {
  readonly phpExtensions: ReadonlyMap<number, readonly DependencyRow[]>;
  readonly databases: ReadonlyMap<number, readonly DependencyRow[]>;
  readonly commands: ReadonlyMap<number, ReadonlyArray<{ readonly command: string }>>;
  readonly licenses: ReadonlyMap<number, ReadonlyArray<{ readonly license: string }>>;
  readonly changelogs: ReadonlyMap<number, ReadonlyArray<{ readonly language: string; readonly changelog: string }>>;
  readonly externals: ReadonlyMap<number, Selectable<ReleaseExternalAppsTable>>;
}

/**
 * Whose details to read: the releases of these apps (`unwritten`: only those without a current
 * listing text), these releases, or every release (null).
 */
export type ReleaseScope =
  | { readonly appIds: readonly string[]; readonly unwritten?: boolean }
  | { readonly releaseIds: readonly number[] }
  | null;

/** Rows grouped by a key, each group in the rows' order. */
export function groupBy<T, K>(rows: readonly T[], key: (row: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const row of rows) {
    const k = key(row);
    const list = groups.get(k);
    if (list === undefined) groups.set(k, [row]);
    else list.push(row);
  }
  return groups;
}

const byRelease = <T extends { release_id: number }>(rows: readonly T[]): Map<number, T[]> =>
  groupBy(rows, (row) => Number(row.release_id));

const NO_DETAILS: ReleaseDetails = {
  phpExtensions: new Map(),
  databases: new Map(),
  commands: new Map(),
  licenses: new Map(),
  changelogs: new Map(),
  externals: new Map(),
};

/** The details of the releases in `scope`, in a handful of queries (none per release). */
export async function loadReleaseDetails(db: Kysely<Database>, scope: ReleaseScope): Promise<ReleaseDetails> {
  if (scope !== null && ('appIds' in scope ? scope.appIds.length === 0 : scope.releaseIds.length === 0))
    return NO_DETAILS;
  const ids =
    scope === null
      ? null
      : 'appIds' in scope
        ? db
            .selectFrom('releases')
            .select('id')
            .where('app_id', 'in', scope.appIds)
            .$if(scope.unwritten === true, (q) => q.where(NO_CURRENT_TEXT))
        : [...scope.releaseIds];
  const dependencies = (table: 'release_php_extensions' | 'release_databases') =>
    db
      .selectFrom(table)
      .select(['release_id', 'name', 'version_spec', 'raw_version_spec'])
      .$if(ids !== null, (q) => q.where('release_id', 'in', ids ?? []))
      .orderBy('position')
      .execute();
  const [phpExtensions, databases, commands, licenses, changelogs, externals] = await Promise.all([
    dependencies('release_php_extensions'),
    dependencies('release_databases'),
    db
      .selectFrom('release_shell_commands')
      .select(['release_id', 'command'])
      .$if(ids !== null, (q) => q.where('release_id', 'in', ids ?? []))
      .orderBy('position')
      .execute(),
    db
      .selectFrom('release_licenses')
      .select(['release_id', 'license'])
      .$if(ids !== null, (q) => q.where('release_id', 'in', ids ?? []))
      .orderBy('position')
      .execute(),
    db
      .selectFrom('release_translations')
      .select(['release_id', 'language', 'changelog'])
      .$if(ids !== null, (q) => q.where('release_id', 'in', ids ?? []))
      .orderBy('language')
      .execute(),
    db
      .selectFrom('release_external_apps')
      .selectAll()
      .$if(ids !== null, (q) => q.where('release_id', 'in', ids ?? []))
      .execute(),
  ]);
  return {
    phpExtensions: byRelease(phpExtensions),
    databases: byRelease(databases),
    commands: byRelease(commands),
    licenses: byRelease(licenses),
    changelogs: byRelease(changelogs),
    externals: new Map(externals.map((row) => [Number(row.release_id), row])),
  };
}

const dependency = (row: DependencyRow): Dependency => ({
  id: row.name,
  versionSpec: row.version_spec,
  rawVersionSpec: row.raw_version_spec,
});

/** A release as the listings show it (api.md, Release), from its row and its details. */
export function toListedRelease(row: ListedReleaseRow, details: ReleaseDetails): ListedRelease {
  const id = Number(row.id);
  return {
    version: row.version,
    phpExtensions: (details.phpExtensions.get(id) ?? []).map(dependency),
    databases: (details.databases.get(id) ?? []).map(dependency),
    shellCommands: (details.commands.get(id) ?? []).map((c) => c.command),
    phpVersionSpec: row.php_version_spec,
    rawPhpVersionSpec: row.raw_php_version_spec,
    platformVersionSpec: row.platform_version_spec,
    rawPlatformVersionSpec: row.raw_platform_version_spec,
    minIntSize: Number(row.min_int_size),
    isNightly: toBool(row.is_nightly),
    download: row.download,
    created: row.created_at,
    lastModified: row.updated_at,
    licenses: (details.licenses.get(id) ?? []).map((l) => l.license),
    signature: row.signature,
    signatureDigest: row.signature_digest,
    translations: Object.fromEntries(
      (details.changelogs.get(id) ?? []).map((t) => [t.language, { changelog: t.changelog }]),
    ),
    ...externalFields(details.externals.get(id)),
    // Additive, and only where set (issue 53): every other release is listed as before.
    ...(row.provenance === null ? {} : { provenance: JSON.parse(row.provenance) as Provenance }),
  };
}

/** An ExApp release's appapi_apps.json fields, from its row (none for an ordinary release). */
function externalFields(row: Selectable<ReleaseExternalAppsTable> | undefined): Partial<AppApiFields> {
  if (row === undefined) return {};
  return appApiFields({
    isSystem: toBool(row.is_system),
    dockerInstall: { registry: row.registry, image: row.image, imageTag: row.image_tag },
    scopes: JSON.parse(row.scopes) as string[],
    environmentVariables: JSON.parse(row.environment_variables) as EnvironmentVariable[],
  });
}

/**
 * How listing texts are made now: releases made of sample rows (every field and detail, two of
 * each list, an ExApp's fields both ways, text that must be escaped), as toListedRelease and
 * releaseText make their text, hashed. A change to either that shows in the samples gives
 * another format, and texts written before it are not used (their releases are listed from their
 * rows). A change the samples cannot show must change LAYOUT: the order or choice of detail rows
 * (loadReleaseDetails's queries), or a case that depends on a value they do not hold. The code's
 * own source is not hashed: the bundle and the sources (tsx) print it differently, and a text
 * written by one is read by the other (the bench's data, the tests' servers).
 */
const LAYOUT = 'release text 1';

function sampleFormat(): string {
  const row: ListedReleaseRow = {
    id: 1,
    app_id: 'sample',
    version: '1.2.3-beta.1',
    is_nightly: 1,
    download: 'https://example.org/sample.tar.gz?a="b"&c=\\d',
    signature: 'c2lnbmF0dXJl\n',
    signature_digest: 'sha512',
    php_version_spec: '>=8.1.0',
    raw_php_version_spec: '>=8.1',
    platform_version_spec: '>=30.0.0 <32.0.0',
    raw_platform_version_spec: '>=30 <=31',
    min_int_size: 64,
    created_at: '2026-01-02T03:04:05.000000Z',
    updated_at: '2026-01-02T03:04:06.000000Z',
    provenance: JSON.stringify({
      provider: 'github',
      issuer: 'https://token.actions.githubusercontent.com',
      repository: 'o/r',
      commit: 'abc',
      workflow: 'o/r/.github/workflows/r.yml@refs/tags/v1',
      ref: 'refs/tags/v1',
      environment: null,
      runId: '1/1',
      runUrl: 'https://github.com/o/r/actions/runs/1/attempts/1',
    }),
  };
  const dependencyRow = { release_id: 1, name: 'pgsql', version_spec: '>=12.0.0', raw_version_spec: '>=12' };
  const details = (isSystem: number, variables: string): ReleaseDetails => ({
    phpExtensions: new Map([
      [
        1,
        [
          { ...dependencyRow, name: 'intl' },
          { ...dependencyRow, name: 'gd', version_spec: '*', raw_version_spec: '*' },
        ],
      ],
    ]),
    databases: new Map([[1, [dependencyRow, { ...dependencyRow, name: 'mysql' }]]]),
    commands: new Map([[1, [{ command: 'ffmpeg' }, { command: 'convert' }]]]),
    licenses: new Map([[1, [{ license: 'AGPL-3.0-or-later' }, { license: 'MIT' }]]]),
    changelogs: new Map([
      [
        1,
        [
          { language: 'de', changelog: '' },
          { language: 'en', changelog: '- "fixed"\u2028\ud800 é' },
        ],
      ],
    ]),
    externals: new Map([
      [
        1,
        {
          release_id: 1,
          is_system: isSystem,
          registry: 'ghcr.io',
          image: 'x/y',
          image_tag: '1',
          scopes: '["FILES","TALK"]',
          environment_variables: variables,
        },
      ],
    ]),
  });
  const variables =
    '[{"name":"A","displayName":"B","description":"C","default":null},{"name":"D","displayName":"E","description":"","default":"F"}]';
  const text = [
    toListedRelease(row, details(0, variables)),
    toListedRelease({ ...row, is_nightly: 0, min_int_size: 32 }, details(1, '[]')),
    toListedRelease({ ...row, is_nightly: false, provenance: null }, NO_DETAILS),
  ]
    .map(releaseText)
    .join('\n');
  return `${LAYOUT}:${createHash('sha256').update(text).digest('base64url').slice(0, 16)}`;
}

/** The format of the listing texts this code writes and reads (releases.listing_text_format). */
export const RELEASE_TEXT_FORMAT = sampleFormat();

/**
 * A release whose listing text is current: in this format, and made from the row as it is now
 * (every write of a release sets `updated_at`, whether or not it knows of the text). Never NULL.
 */
export const CURRENT_TEXT = sql<boolean>`(listing_text is not null and listing_text_format = ${RELEASE_TEXT_FORMAT} and listing_text_updated_at is not null and listing_text_updated_at = updated_at)`;
export const NO_CURRENT_TEXT = sql<boolean>`not ${CURRENT_TEXT}`;

/**
 * Writes the release's listing text from what is saved of it now, in the transaction that saved
 * it: read back through the same mapping the listings read it with, so the text is what a render
 * from the rows would make. Three statements (issue 55: it was eight): the row with its ExApp
 * data, every detail row in one union, the update.
 */
export async function writeReleaseListingText(db: Kysely<Database>, releaseId: number): Promise<void> {
  const found = await db
    .selectFrom('releases')
    .leftJoin('release_external_apps as x', 'x.release_id', 'releases.id')
    .select(LISTED_RELEASE_COLUMNS.map((column) => `releases.${column}` as const))
    .select([
      'x.release_id as x_release_id',
      'x.is_system as x_is_system',
      'x.registry as x_registry',
      'x.image as x_image',
      'x.image_tag as x_image_tag',
      'x.scopes as x_scopes',
      'x.environment_variables as x_environment_variables',
    ])
    .where('releases.id', '=', releaseId)
    .executeTakeFirst();
  if (found === undefined) return;
  const { x_release_id, x_is_system, x_registry, x_image, x_image_tag, x_scopes, x_environment_variables, ...row } =
    found;
  const external =
    x_release_id === null
      ? null
      : {
          release_id: Number(x_release_id),
          is_system: x_is_system ?? false,
          registry: x_registry ?? '',
          image: x_image ?? '',
          image_tag: x_image_tag ?? '',
          scopes: x_scopes ?? '[]',
          environment_variables: x_environment_variables ?? '[]',
        };
  const details = await loadOneReleaseDetails(db, releaseId, external);
  await db
    .updateTable('releases')
    .set({
      listing_text: Buffer.from(releaseText(toListedRelease(row, details))),
      listing_text_format: RELEASE_TEXT_FORMAT,
      listing_text_updated_at: row.updated_at,
    })
    .where('id', '=', releaseId)
    .execute();
}

/**
 * One release's details in one statement: its dependency, command, licence and changelog rows as
 * one union, each kind in the order loadReleaseDetails reads it in (by position; changelogs by
 * language, in the database's collation as there).
 */
async function loadOneReleaseDetails(
  db: Kysely<Database>,
  releaseId: number,
  external: Selectable<ReleaseExternalAppsTable> | null,
): Promise<ReleaseDetails> {
  const { rows } = await sql<{ kind: string; a: string; b: string | null; c: string | null }>`
    select 1 as k, position as n, name as a, version_spec as b, raw_version_spec as c, 'php' as kind from release_php_extensions where release_id = ${releaseId}
    union all select 2, position, name, version_spec, raw_version_spec, 'database' from release_databases where release_id = ${releaseId}
    union all select 3, position, command, null, null, 'command' from release_shell_commands where release_id = ${releaseId}
    union all select 4, position, license, null, null, 'license' from release_licenses where release_id = ${releaseId}
    union all select 5, 0, language, changelog, null, 'changelog' from release_translations where release_id = ${releaseId}
    order by k, n, a`.execute(db);
  const of = (kind: string) => rows.filter((row) => row.kind === kind);
  const dependencies = (kind: string): DependencyRow[] =>
    of(kind).map((row) => ({
      release_id: releaseId,
      name: row.a,
      version_spec: row.b ?? '',
      raw_version_spec: row.c ?? '',
    }));
  const single = <T>(list: readonly T[]): Map<number, T[]> =>
    list.length === 0 ? new Map() : new Map([[releaseId, [...list]]]);
  return {
    phpExtensions: single(dependencies('php')),
    databases: single(dependencies('database')),
    commands: single(of('command').map((row) => ({ command: row.a }))),
    licenses: single(of('license').map((row) => ({ license: row.a }))),
    changelogs: single(of('changelog').map((row) => ({ language: row.a, changelog: row.b ?? '' }))),
    externals: external === null ? new Map() : new Map([[releaseId, external]]),
  };
}
