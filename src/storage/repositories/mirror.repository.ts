import type { Kysely, Transaction } from 'kysely';
import type {
  DocumentName,
  MirroredApp,
  MirroredRelease,
  MirrorStore,
  MirrorUpdate,
  ReleaseStatus,
} from '../../domain/mirror/mirror-ports.ts';
import { releaseKey } from '../../domain/mirror/mirror-policy.ts';
import { formatTimestamp } from '../../domain/timestamps.ts';
import type { MirrorSnapshot } from '../../metrics.ts';
import { toBool } from '../schema.ts';
import type { Database } from '../schema.ts';
import { writeTransaction } from '../write-transaction.ts';
import { insertAudit } from '../audit-row.ts';
import { auditedWrite } from './audit.repository.ts';
import { writeCategories } from './category.repository.ts';
import { markAppsChanged } from './content-version.repository.ts';
import { writeDiscoverEntries } from './discover.repository.ts';
import { writePlatformReleases } from './platform-release.repository.ts';
import { replaceAppData, replaceIcon, replaceReleaseDetails } from './release.repository.ts';

type Trx = Transaction<Database>;

/** The account that owns the apps taken from the upstream: a name sign-up cannot give, no password, disabled. */
export const MIRROR_OWNER = '(upstream)';

async function mirrorOwner(trx: Trx, at: string): Promise<number> {
  const found = await trx.selectFrom('users').select('id').where('username', '=', MIRROR_OWNER).executeTakeFirst();
  if (found !== undefined) return Number(found.id);
  const created = await trx
    .insertInto('users')
    .values({
      username: MIRROR_OWNER,
      email: null,
      first_name: 'Upstream',
      last_name: 'store',
      password_hash: null,
      is_admin: false,
      is_active: false,
      created_at: at,
      updated_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(created.id);
}

async function writeApp(
  trx: Trx,
  mirrored: MirroredApp,
  ownerId: number,
  categories: ReadonlySet<string>,
): Promise<void> {
  const { upstream } = mirrored;
  const id = upstream.app.id;
  // As the connected store has it: releases it kept (gone upstream) are not the app's latest.
  const lastRelease =
    mirrored.listed
      .filter((r) => r.fromKept !== true)
      .map((r) => r.upstream.created)
      .sort()
      .at(-1) ?? null;
  const { status } = upstream;
  const row = {
    certificate: upstream.certificate,
    is_featured: upstream.isFeatured,
    // Carried over as the upstream says it (issue 52), dated by the upstream's last change.
    deprecated_at: status.deprecated === null ? null : upstream.lastModified,
    deprecation_reason: status.deprecated?.reason ?? '',
    successor_id: status.deprecated?.successor ?? '',
    orphaned_at: status.orphan ? upstream.lastModified : null,
    created_at: upstream.created,
    updated_at: upstream.lastModified,
    last_release_at: lastRelease,
    source: 'upstream',
    upstream_hash: mirrored.hash,
  };
  await trx
    .insertInto('apps')
    .values({ id, owner_id: ownerId, ...row })
    .onConflict((oc) => oc.column('id').doUpdateSet(row))
    .execute();
  // An app names only categories this store has (the upstream's own list, taken in the same sync).
  await replaceAppData(
    trx,
    { ...upstream.app, categories: upstream.app.categories.filter((c) => categories.has(c)) },
    upstream.lastModified,
  );
  if (mirrored.icon !== undefined) await replaceIcon(trx, id, mirrored.icon, upstream.lastModified);

  const keep = new Set(mirrored.kept.map((r) => `${r.version} ${r.nightly}`));
  // A kept release (gone upstream) keeps its data, but its URL here follows APPSTORE_PUBLIC_URL;
  // its listing text is cleared, so the listings read it from its rows (listed-release.repository.ts).
  for (const kept of mirrored.kept) {
    await trx
      .updateTable('releases')
      .set({ download: kept.download, listing_text: null })
      .where('app_id', '=', id)
      .where('version', '=', kept.version)
      .where('is_nightly', '=', kept.nightly)
      .where('download', '!=', kept.download)
      .execute();
  }
  for (const listed of mirrored.listed) {
    const release = listed.upstream.release;
    keep.add(`${release.version} ${release.isNightly}`);
    const values = {
      download: listed.download,
      signature: listed.upstream.signature,
      signature_digest: listed.upstream.signatureDigest,
      archive_sha256: listed.sha256,
      archive_size: listed.size,
      php_version_spec: release.phpVersionSpec,
      raw_php_version_spec: release.rawPhpVersionSpec,
      platform_version_spec: release.platformVersionSpec,
      raw_platform_version_spec: release.rawPlatformVersionSpec,
      min_int_size: release.minIntSize,
      created_at: listed.upstream.created,
      updated_at: listed.upstream.lastModified,
    };
    const saved = await trx
      .insertInto('releases')
      .values({ ...values, app_id: id, version: release.version, is_nightly: release.isNightly })
      .onConflict((oc) => oc.columns(['app_id', 'version', 'is_nightly']).doUpdateSet(values))
      .returning('id')
      .executeTakeFirstOrThrow();
    await replaceReleaseDetails(trx, Number(saved.id), release);
  }
  const stored = await trx
    .selectFrom('releases')
    .select(['id', 'version', 'is_nightly'])
    .where('app_id', '=', id)
    .execute();
  const gone = stored.filter((r) => !keep.has(`${r.version} ${toBool(r.is_nightly)}`)).map((r) => Number(r.id));
  if (gone.length > 0) await trx.deleteFrom('releases').where('id', 'in', gone).execute();
  // Releases the upstream retired are retired here too; those it offers again, offered again.
  const retired = new Map(status.retired.map((r) => [`${r.version} ${r.nightly}`, r.reason]));
  for (const release of stored) {
    const reason = retired.get(`${release.version} ${toBool(release.is_nightly)}`);
    await trx
      .updateTable('releases')
      .set(
        reason === undefined
          ? { retired_at: null, retirement_reason: '', retirement_note: '' }
          : { retired_at: upstream.lastModified, retirement_reason: reason, retirement_note: '' },
      )
      .where('id', '=', Number(release.id))
      .where('retired_at', reason === undefined ? 'is not' : 'is', null)
      .execute();
  }
}

async function replaceRecords(trx: Trx, records: readonly MirroredRelease[]): Promise<void> {
  await trx.deleteFrom('mirror_releases').execute();
  for (let start = 0; start < records.length; start += 200) {
    const rows = records.slice(start, start + 200).map((r) => ({
      app_id: r.appId,
      version: r.version,
      is_nightly: r.nightly,
      upstream_download: r.upstreamDownload,
      signature: r.signature,
      status: r.status,
      reason: r.reason,
      sha256: r.sha256,
      size: r.size,
      checked_at: r.checkedAt,
      checked_with: r.checkedWith,
      kept_entry: r.keptEntry,
    }));
    if (rows.length > 0) await trx.insertInto('mirror_releases').values(rows).execute();
  }
}

/** The stored records, ordered by release; `page`: only those from `offset`, at most `limit`. */
export async function readMirrorRecords(
  db: Kysely<Database>,
  page?: { readonly offset: number; readonly limit: number },
): Promise<MirroredRelease[]> {
  const ordered = db
    .selectFrom('mirror_releases')
    .selectAll()
    .orderBy('app_id')
    .orderBy('version')
    .orderBy('is_nightly');
  const rows = await (page === undefined ? ordered : ordered.limit(page.limit).offset(page.offset)).execute();
  return rows.map((r) => ({
    appId: r.app_id,
    version: r.version,
    nightly: toBool(r.is_nightly),
    upstreamDownload: r.upstream_download,
    signature: r.signature,
    status: r.status as ReleaseStatus,
    reason: r.reason,
    sha256: r.sha256,
    size: Number(r.size),
    checkedAt: r.checked_at,
    checkedWith: r.checked_with,
    keptEntry: r.kept_entry,
  }));
}

/** Rows of the stored records compared at a time. */
const COMPARED_PER_PAGE = 2000;

/** The same record, when it was checked aside: what a sync decides by. */
const sameRecord = (a: MirroredRelease, b: MirroredRelease): boolean =>
  a.status === b.status &&
  a.reason === b.reason &&
  a.sha256 === b.sha256 &&
  a.size === b.size &&
  a.upstreamDownload === b.upstreamDownload &&
  a.signature === b.signature &&
  a.checkedWith === b.checkedWith &&
  a.keptEntry === b.keptEntry;

/**
 * Whether the stored records are `records` (the times they were checked aside), read a page at a
 * time: with every release of the original store mirrored (about 20,000), reading them all again
 * beside the sync's own, and writing both out as text to compare, was the peak of a sync's memory
 * (issue 55).
 */
async function storedRecordsAre(trx: Trx, records: readonly MirroredRelease[]): Promise<boolean> {
  const { count } = await trx
    .selectFrom('mirror_releases')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .executeTakeFirstOrThrow();
  if (Number(count) !== records.length) return false;
  const byKey = new Map(records.map((r) => [releaseKey(r.appId, r.version, r.nightly), r]));
  if (byKey.size !== records.length) return false;
  for (let offset = 0; offset < records.length; offset += COMPARED_PER_PAGE) {
    const page = await readMirrorRecords(trx, { offset, limit: COMPARED_PER_PAGE });
    for (const stored of page) {
      const record = byKey.get(releaseKey(stored.appId, stored.version, stored.nightly));
      if (record === undefined || !sameRecord(stored, record)) return false;
    }
  }
  return true;
}

export function mirrorRepository(db: Kysely<Database>): MirrorStore {
  return {
    async state() {
      const [documents, releases, apps] = await Promise.all([
        db.selectFrom('mirror_documents').select(['name', 'etag', 'body']).execute(),
        readMirrorRecords(db),
        db.selectFrom('apps').select(['id', 'source', 'upstream_hash']).execute(),
      ]);
      return {
        documents: new Map(documents.map((d) => [d.name as DocumentName, { etag: d.etag, body: d.body }])),
        releases,
        localAppIds: new Set(apps.filter((a) => a.source !== 'upstream').map((a) => a.id)),
        mirroredApps: new Map(apps.filter((a) => a.source === 'upstream').map((a) => [a.id, a.upstream_hash])),
      };
    },

    async lastImport() {
      const row = await db
        .selectFrom('audit_log')
        .select('details')
        .where('event', '=', 'mirror.imported')
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
      if (row === undefined) return null;
      const details = JSON.parse(row.details) as Record<string, unknown>;
      return typeof details.exportId === 'string' && typeof details.exportCreatedAt === 'string'
        ? { exportId: details.exportId, createdAt: details.exportCreatedAt }
        : null;
    },

    async recordFailure(audit, now) {
      await auditedWrite(db, audit, now, async () => ({ changed: true, result: undefined }));
    },

    async status() {
      const documents = await db
        .selectFrom('mirror_documents')
        .select(['name', 'etag', 'fetched_at'])
        .orderBy('name')
        .execute();
      const last = (events: readonly ('mirror.synced' | 'mirror.imported' | 'mirror.sync_failed')[]) =>
        db
          .selectFrom('audit_log')
          .select(['event', 'at', 'details'])
          .where('event', 'in', events)
          .orderBy('id', 'desc')
          .limit(1)
          .executeTakeFirst();
      const [checked, failed] = await Promise.all([
        last(['mirror.synced', 'mirror.imported']),
        last(['mirror.sync_failed']),
      ]);
      const reason =
        failed === undefined ? '' : String((JSON.parse(failed.details) as Record<string, unknown>).reason ?? '');
      return {
        documents: documents.map((d) => ({ name: d.name, etag: d.etag, fetchedAt: d.fetched_at })),
        releases: await readMirrorRecords(db),
        lastChecked: checked === undefined ? null : { at: checked.at, event: checked.event },
        lastFailure:
          failed === undefined || (checked !== undefined && checked.at > failed.at) ? null : { at: failed.at, reason },
      };
    },

    async apply(update: MirrorUpdate, now, audit) {
      const at = formatTimestamp(now);
      // The listings' data: when none of it changes, the content version (and every listing's ETag) stays.
      const outcome = await writeTransaction(
        db,
        now,
        async (trx) => {
          let changed = false;
          if (update.categories !== null) {
            const summary = await writeCategories(trx, update.categories, now);
            changed ||= summary.created + summary.updated > 0;
          }
          if (update.platforms !== null) {
            const summary = await writePlatformReleases(trx, update.platforms, now);
            changed ||= summary.created + summary.updated > 0;
          }
          const apps = new Map(
            (await trx.selectFrom('apps').select(['id', 'source', 'upstream_hash']).execute()).map((a) => [a.id, a]),
          );
          const categories = new Set((await trx.selectFrom('categories').select('id').execute()).map((c) => c.id));
          const written: string[] = [];
          let ownerId: number | null = null;
          for (const app of update.apps) {
            const current = apps.get(app.upstream.app.id);
            // An app registered here meanwhile keeps its id: the collision is reported at the next sync.
            if (current !== undefined && (current.source !== 'upstream' || current.upstream_hash === app.hash))
              continue;
            ownerId ??= await mirrorOwner(trx, at);
            await writeApp(trx, app, ownerId, categories);
            written.push(app.upstream.app.id);
          }
          const dropped = update.droppedApps.filter((id) => apps.get(id)?.source === 'upstream');
          if (dropped.length > 0) await trx.deleteFrom('apps').where('id', 'in', dropped).execute();
          if (update.discover !== null) changed = (await writeDiscoverEntries(trx, update.discover, now)) || changed;
          await markAppsChanged(trx, written);
          return { changed: changed || written.length > 0 || dropped.length > 0, result: null };
        },
        audit,
      );
      // The mirror's own record (the documents with their ETags, the releases considered) is not
      // listing data: it is saved after it, and a sync that changed no listing is in the audit log
      // all the same. Should this step fail, the next sync reads and checks again what it lacks.
      await db.transaction().execute(async (trx) => {
        for (const document of update.documents) {
          // The body (apps.json: tens of MB) is bound once: the update takes the row it would have inserted.
          await trx
            .insertInto('mirror_documents')
            .values({ name: document.name, etag: document.etag, body: document.body, fetched_at: at })
            .onConflict((oc) =>
              oc.column('name').doUpdateSet((eb) => ({
                etag: eb.ref('excluded.etag'),
                body: eb.ref('excluded.body'),
                fetched_at: eb.ref('excluded.fetched_at'),
              })),
            )
            .execute();
        }
        if (!(await storedRecordsAre(trx, update.releases))) await replaceRecords(trx, update.releases);
        if (!outcome.changed) await insertAudit(trx, audit, now);
      });
    },
  };
}

/** What the metrics show of the mirror (metrics.ts): the last audited sync or import, and the releases by status. */
export async function readMirrorSnapshot(db: Kysely<Database>): Promise<MirrorSnapshot> {
  const [last, counts] = await Promise.all([
    db
      .selectFrom('audit_log')
      .select(['event', 'at', 'details'])
      .where('event', 'in', ['mirror.synced', 'mirror.imported'])
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst(),
    db
      .selectFrom('mirror_releases')
      .select(['status', db.fn.countAll<number | string>().as('count')])
      .groupBy('status')
      .execute(),
  ]);
  const releases = { listed: 0, refused: 0, unavailable: 0 };
  for (const row of counts)
    if (row.status in releases) releases[row.status as keyof typeof releases] = Number(row.count);
  if (last === undefined) return { lastSync: null, releases };
  const details = JSON.parse(last.details) as Record<string, unknown>;
  const number = (key: string): number => (typeof details[key] === 'number' ? (details[key] as number) : 0);
  return {
    lastSync: {
      kind: last.event === 'mirror.imported' ? 'import' : 'sync',
      at: new Date(last.at),
      durationMs: number('durationMs'),
      bytes: number('bytes'),
      releases: {
        taken: number('taken'),
        unchanged: number('unchanged'),
        skipped: number('skipped'),
        refused: number('refused'),
        removed: number('removed'),
      },
    },
    releases,
  };
}
