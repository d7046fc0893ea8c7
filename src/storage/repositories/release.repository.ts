import type { Kysely, Transaction } from 'kysely';
import type { AppIcon } from '../../domain/releases/app-icon.ts';
import type { AppData, ReleaseData } from '../../domain/releases/release-data.ts';
import type { ReleaseStore } from '../../domain/releases/release-store.ts';
import { toBool } from '../schema.ts';
import type { Database } from '../schema.ts';
import { formatTimestamp } from '../../domain/timestamps.ts';
import { deleteInWriteTransaction, writeTransaction } from '../write-transaction.ts';
import { markAppsChanged } from './content-version.repository.ts';
import { readRegisteredApp } from './app.repository.ts';
import { writeReleaseListingText } from './listed-release.repository.ts';

type Trx = Transaction<Database>;

/**
 * A release's details (dependencies, licenses, changelogs, ExApp data) replaced, and its listing
 * text written from what is saved. `fresh`: the release row was just inserted, so it has no
 * details to delete (a deleted release's went with it: the foreign keys cascade).
 */
export async function replaceReleaseDetails(
  trx: Trx,
  releaseId: number,
  release: ReleaseData,
  fresh = false,
): Promise<void> {
  // ExApp data too: a version published again without <external-app> becomes an ordinary release.
  if (!fresh)
    for (const table of [
      'release_php_extensions',
      'release_databases',
      'release_shell_commands',
      'release_licenses',
      'release_translations',
      'release_external_apps',
    ] as const) {
      await trx.deleteFrom(table).where('release_id', '=', releaseId).execute();
    }
  const dependencies = (items: ReleaseData['phpExtensions']) =>
    items.map((item, position) => ({
      release_id: releaseId,
      position,
      name: item.id,
      version_spec: item.versionSpec,
      raw_version_spec: item.rawVersionSpec,
    }));
  if (release.phpExtensions.length > 0)
    await trx.insertInto('release_php_extensions').values(dependencies(release.phpExtensions)).execute();
  if (release.databases.length > 0)
    await trx.insertInto('release_databases').values(dependencies(release.databases)).execute();
  if (release.shellCommands.length > 0) {
    await trx
      .insertInto('release_shell_commands')
      .values(release.shellCommands.map((command, position) => ({ release_id: releaseId, position, command })))
      .execute();
  }
  if (release.licenses.length > 0) {
    await trx
      .insertInto('release_licenses')
      .values(release.licenses.map((license, position) => ({ release_id: releaseId, position, license })))
      .execute();
  }
  const translations = Object.entries(release.translations);
  if (translations.length > 0) {
    await trx
      .insertInto('release_translations')
      .values(translations.map(([language, t]) => ({ release_id: releaseId, language, changelog: t.changelog })))
      .execute();
  }
  const external = release.externalApp;
  if (external !== null) {
    await trx
      .insertInto('release_external_apps')
      .values({
        release_id: releaseId,
        is_system: external.isSystem,
        registry: external.dockerInstall.registry,
        image: external.dockerInstall.image,
        image_tag: external.dockerInstall.imageTag,
        scopes: JSON.stringify(external.scopes),
        environment_variables: JSON.stringify(external.environmentVariables),
      })
      .execute();
  }
  // Last: the text is read back from everything written above.
  await writeReleaseListingText(trx, releaseId);
}

/** The latest release's icon becomes the app's; a latest release without one leaves the app without. */
export async function replaceIcon(trx: Trx, appId: string, icon: AppIcon | null, at: string): Promise<void> {
  if (icon === null) {
    await trx.deleteFrom('app_icons').where('app_id', '=', appId).execute();
    return;
  }
  const row = { hash: icon.hash, svg: icon.svg, dark: icon.dark, updated_at: at };
  await trx
    .insertInto('app_icons')
    .values({ app_id: appId, ...row })
    .onConflict((oc) => oc.column('app_id').doUpdateSet(row))
    .execute();
}

export async function replaceAppData(trx: Trx, app: AppData, at: string): Promise<void> {
  await trx
    .updateTable('apps')
    .set({
      user_docs: app.userDocs,
      admin_docs: app.adminDocs,
      developer_docs: app.developerDocs,
      issue_tracker: app.issueTracker,
      website: app.website,
      discussion: app.discussion,
      updated_at: at,
    })
    .where('id', '=', app.id)
    .execute();
  for (const table of ['app_translations', 'app_authors', 'app_screenshots', 'app_categories'] as const) {
    await trx.deleteFrom(table).where('app_id', '=', app.id).execute();
  }
  await trx
    .insertInto('app_translations')
    .values(
      Object.entries(app.translations).map(([language, t]) => ({
        app_id: app.id,
        language,
        name: t.name,
        summary: t.summary,
        description: t.description,
      })),
    )
    .execute();
  if (app.authors.length > 0) {
    await trx
      .insertInto('app_authors')
      .values(
        app.authors.map((a, position) => ({
          app_id: app.id,
          position,
          name: a.name,
          mail: a.mail,
          homepage: a.homepage,
        })),
      )
      .execute();
  }
  if (app.screenshots.length > 0) {
    await trx
      .insertInto('app_screenshots')
      .values(
        app.screenshots.map((s, position) => ({
          app_id: app.id,
          position,
          url: s.url,
          small_thumbnail: s.smallThumbnail,
        })),
      )
      .execute();
  }
  if (app.categories.length > 0) {
    await trx
      .insertInto('app_categories')
      .values(app.categories.map((category_id, position) => ({ app_id: app.id, category_id, position })))
      .execute();
  }
}

/** Releases: publishing and deleting. Every change bumps the content version. */
export function releaseRepository(db: Kysely<Database>): ReleaseStore {
  return {
    async saveRelease(candidate, facts, rules, now, audit) {
      const { app, release } = candidate;
      const at = formatTimestamp(now);
      const { result } = await writeTransaction(
        db,
        now,
        async (trx) => {
          // The write transaction holds the store's write lock from its first statement, so the app
          // read here is the one every later write sees: a deletion or a new certificate that won
          // the race is judged by `confirm` before anything is saved.
          rules.confirm(await readRegisteredApp(trx, app.id));
          const existing = await trx
            .selectFrom('releases')
            .select(['id', 'created_at', 'archive_sha256'])
            .where('app_id', '=', app.id)
            .where('version', '=', release.version)
            .where('is_nightly', '=', release.isNightly)
            .executeTakeFirst();
          const replaced = existing === undefined ? [] : [existing.archive_sha256];
          // A nightly replaces every earlier nightly of the app, whatever its version.
          if (release.isNightly) {
            const earlier = await trx
              .deleteFrom('releases')
              .where('app_id', '=', app.id)
              .where('is_nightly', '=', true)
              .returning('archive_sha256')
              .execute();
            replaced.push(...earlier.map((r) => r.archive_sha256));
          }
          const row = {
            download: facts.download,
            developer_download: facts.developerDownload,
            signature: facts.signature,
            signature_digest: 'sha512',
            archive_sha256: facts.sha256,
            archive_size: facts.size,
            php_version_spec: release.phpVersionSpec,
            raw_php_version_spec: release.rawPhpVersionSpec,
            platform_version_spec: release.platformVersionSpec,
            raw_platform_version_spec: release.rawPlatformVersionSpec,
            min_int_size: release.minIntSize,
            provenance: facts.provenance === null ? null : JSON.stringify(facts.provenance),
            updated_at: at,
          };
          const inserted = await trx
            .insertInto('releases')
            .values({
              ...row,
              app_id: app.id,
              version: release.version,
              is_nightly: release.isNightly,
              created_at: existing?.created_at ?? at,
            })
            .onConflict((oc) => oc.columns(['app_id', 'version', 'is_nightly']).doUpdateSet(row))
            .returning('id')
            .executeTakeFirstOrThrow();
          const releaseId = Number(inserted.id);
          await replaceReleaseDetails(trx, releaseId, release, existing === undefined);
          const others = await trx
            .selectFrom('releases')
            .select('version')
            .where('app_id', '=', app.id)
            .where('is_nightly', '=', false)
            .where('id', '!=', releaseId)
            .execute();
          if (rules.isLatest(others.map((o) => o.version))) {
            await replaceAppData(trx, app, at);
            await replaceIcon(trx, app.id, candidate.icon, at);
            await trx
              .updateTable('apps')
              .set({ donations: JSON.stringify(candidate.donations ?? []) })
              .where('id', '=', app.id)
              .execute();
          }
          await trx.updateTable('apps').set({ last_release_at: at, updated_at: at }).where('id', '=', app.id).execute();
          await markAppsChanged(trx, [app.id]);
          return {
            changed: true,
            result: { created: existing === undefined, replaced: replaced.filter((sha) => sha !== facts.sha256) },
          };
        },
        audit,
      );
      return result;
    },

    async findRelease(appId, version, nightly) {
      const row = await db
        .selectFrom('releases')
        .select(['id', 'app_id', 'version', 'is_nightly', 'archive_sha256'])
        .where('app_id', '=', appId)
        .where('version', '=', version)
        .where('is_nightly', '=', nightly)
        .executeTakeFirst();
      return row === undefined
        ? null
        : {
            id: Number(row.id),
            appId: row.app_id,
            version: row.version,
            isNightly: toBool(row.is_nightly),
            sha256: row.archive_sha256,
          };
    },

    deleteRelease: (id, now, audit) =>
      deleteInWriteTransaction(
        db,
        now,
        async (trx) => {
          const removed = await trx.deleteFrom('releases').where('id', '=', id).returning('app_id').executeTakeFirst();
          if (removed === undefined) return { numDeletedRows: 0n };
          await markAppsChanged(trx, [removed.app_id]);
          return { numDeletedRows: 1n };
        },
        audit,
      ),
  };
}
