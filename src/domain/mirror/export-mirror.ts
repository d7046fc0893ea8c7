import { said } from '../../i18n/said.ts';
import { createHash, randomBytes } from 'node:crypto';
import { Transform, pipeline } from 'node:stream';
import { AppError, isAppError } from '../../errors.ts';
import { requireAdmin } from '../accounts/authorization.ts';
import type { Acting } from '../audit/audit.ts';
import {
  EXPORT_FORMAT,
  KEPT_DOCUMENT,
  MANIFEST_CHECKSUM_ENTRY,
  MANIFEST_ENTRY,
  archiveEntry,
  documentEntry,
  readManifest,
  sha256Of,
} from './export-format.ts';
import type { ExportDocument, ExportManifest, ExportSink, ExportSource } from './export-format.ts';
import type { KeptEntry } from './kept-releases.ts';
import type { MirrorDeps, MirroredRelease } from './mirror-ports.ts';

/** The kept releases' entries, as the kept document holds them: each app once per document, with its kept releases. */
function keptDocument(releases: readonly MirroredRelease[]): Buffer | null {
  const byDocument = {
    apps: new Map<string, Record<string, unknown>>(),
    appapi_apps: new Map<string, Record<string, unknown>>(),
  };
  for (const release of releases) {
    if (release.status !== 'listed' || release.keptEntry === null) continue;
    const { document, app } = JSON.parse(release.keptEntry) as KeptEntry;
    const apps = document === 'appapi_apps' ? byDocument.appapi_apps : byDocument.apps;
    const id = String(app['id']);
    const known = apps.get(id);
    const entries: unknown[] = Array.isArray(app['releases']) ? (app['releases'] as unknown[]) : [];
    apps.set(
      id,
      known === undefined ? { ...app } : { ...known, releases: [...(known['releases'] as unknown[]), ...entries] },
    );
  }
  if (byDocument.apps.size + byDocument.appapi_apps.size === 0) return null;
  return Buffer.from(
    JSON.stringify({ apps: [...byDocument.apps.values()], appapi_apps: [...byDocument.appapi_apps.values()] }),
    'utf8',
  );
}

export interface ExportReport {
  readonly id: string;
  readonly base: string | null;
  readonly documents: number;
  readonly archives: number;
  /** Archives left out: the base export holds them. */
  readonly leftOut: number;
  readonly bytes: number;
}

/**
 * `appstore mirror export FILE [--since EARLIER]`: the upstream documents this store last read and
 * the archives of every release it lists, with a manifest. Incremental against an earlier export:
 * the archives that one held are left out (the importing store has them).
 */
export async function exportMirror(
  acting: Acting,
  deps: Pick<MirrorDeps, 'store' | 'storage' | 'upstream' | 'now'>,
  sink: ExportSink,
  since: ExportSource | null,
): Promise<ExportReport> {
  requireAdmin(acting, said`export the mirror.`);
  try {
    const base = since === null ? null : await readManifest(since);
    const known = new Set(base?.archives.map((a) => a.sha256) ?? []);
    const state = await deps.store.state();
    if (state.documents.size === 0)
      throw new AppError(
        'mirror_not_configured',
        said`This store has not synced yet: run appstore mirror sync, then export.`,
      );
    const documents: Array<{ name: ExportDocument; etag: string | null; body: Buffer }> = [
      ...state.documents.entries(),
    ].map(([name, { etag, body }]) => ({ name, etag, body: Buffer.from(body, 'utf8') }));
    const kept = keptDocument(state.releases);
    if (kept !== null) documents.push({ name: KEPT_DOCUMENT, etag: null, body: kept });
    const archives = new Map<string, { sha256: string; size: number; included: boolean; downloads: string[] }>();
    for (const release of state.releases) {
      if (release.status !== 'listed') continue;
      const archive = archives.get(release.sha256) ?? {
        sha256: release.sha256,
        size: release.size,
        included: !known.has(release.sha256),
        downloads: [],
      };
      archive.downloads.push(release.upstreamDownload);
      archives.set(release.sha256, archive);
    }
    const manifest: ExportManifest = {
      format: EXPORT_FORMAT,
      id: randomBytes(8).toString('hex'),
      createdAt: deps.now().toISOString(),
      upstream: deps.upstream.url,
      base: base === null ? null : { id: base.id, createdAt: base.createdAt },
      documents: documents.map(({ name, etag, body }) => ({ name, etag, sha256: sha256Of(body), size: body.length })),
      archives: [...archives.values()].sort((a, b) => (a.sha256 < b.sha256 ? -1 : 1)),
    };
    const manifestBytes = Buffer.from(`${JSON.stringify(manifest, null, 1)}\n`, 'utf8');
    await sink.add(MANIFEST_ENTRY, manifestBytes.length, manifestBytes);
    const checksum = Buffer.from(`${sha256Of(manifestBytes)}\n`);
    await sink.add(MANIFEST_CHECKSUM_ENTRY, checksum.length, checksum);
    for (const { name, body } of documents) await sink.add(documentEntry(name), body.length, body);
    let bytes = 0;
    for (const archive of manifest.archives) {
      if (!archive.included) continue;
      const stream = await deps.storage.open(archive.sha256);
      if (stream === null)
        throw new AppError(
          'archive_not_found',
          said`The archive ${archive.sha256} of a listed release is missing from ${deps.storage.description}: run appstore mirror sync (it fetches what is missing), then export again.`,
        );
      // Each archive is checked as it is written: a damaged one would make the whole file useless.
      const damaged = (): AppError =>
        new AppError(
          'archive_not_found',
          said`The stored archive ${archive.sha256} (${archive.downloads[0] ?? ''}) in ${deps.storage.description} is damaged: its bytes no longer match their SHA-256. Remove it there and run appstore mirror sync, which downloads it again; then export.`,
        );
      const hash = createHash('sha256');
      const checked = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          hash.update(chunk);
          done(null, chunk);
        },
      });
      try {
        await sink.add(
          archiveEntry(archive.sha256),
          archive.size,
          pipeline(stream, checked, () => undefined),
        );
      } catch (error) {
        if (isAppError(error)) throw error;
        throw damaged();
      }
      if (hash.digest('hex') !== archive.sha256) throw damaged();
      bytes += archive.size;
    }
    await sink.finish();
    return {
      id: manifest.id,
      base: manifest.base?.id ?? null,
      documents: documents.length,
      archives: manifest.archives.filter((a) => a.included).length,
      leftOut: manifest.archives.filter((a) => !a.included).length,
      bytes,
    };
  } catch (error) {
    await sink.abandon();
    throw error;
  }
}
