import { said } from '../../i18n/said.ts';
import { AppError, isAppError } from '../../errors.ts';
import { requireAdmin } from '../accounts/authorization.ts';
import type { Acting } from '../audit/audit.ts';
import {
  KEPT_DOCUMENT,
  MANIFEST_CHECKSUM_ENTRY,
  MANIFEST_ENTRY,
  archiveEntry,
  documentEntry,
  invalid,
  readManifest,
  sha256Of,
} from './export-format.ts';
import type { ExportManifest, ExportSource } from './export-format.ts';
import { MAX_DOCUMENT_BYTES } from './mirror-ports.ts';
import type { ArchiveStorage } from '../archives/archive-storage.ts';
import type { MirrorDeps, SyncReport, Upstream } from './mirror-ports.ts';
import { syncMirror } from './sync-mirror.ts';

/** What the sync needs of a verified export: the manifest and where each upstream download's bytes are. */
interface VerifiedExport {
  readonly manifest: ExportManifest;
  readonly byDownload: ReadonlyMap<string, ExportManifest['archives'][number]>;
}

/**
 * Everything an import checks before it changes anything: the manifest's SHA-256; the file holds
 * exactly the entries the manifest names, each with its size and SHA-256; the archives an
 * incremental export leaves out are already stored here.
 */
export async function verifyExport(source: ExportSource, storage: ArchiveStorage): Promise<VerifiedExport> {
  const manifest = await readManifest(source);
  const expected = new Map<string, { sha256: string; size: number }>();
  for (const document of manifest.documents) expected.set(documentEntry(document.name), document);
  for (const archive of manifest.archives) if (archive.included) expected.set(archiveEntry(archive.sha256), archive);
  for (const name of source.entries.keys()) {
    if (name !== MANIFEST_ENTRY && name !== MANIFEST_CHECKSUM_ENTRY && !expected.has(name))
      throw invalid(source.description, `it holds ${name.slice(0, 120)}, which its manifest does not name`);
  }
  for (const document of manifest.documents) {
    if (document.size > MAX_DOCUMENT_BYTES)
      throw invalid(
        source.description,
        `its ${document.name}.json has ${document.size} bytes, more than a sync reads (${MAX_DOCUMENT_BYTES})`,
      );
  }
  for (const [name, { sha256, size }] of expected) {
    const actual = source.entries.get(name);
    if (actual === undefined) throw invalid(source.description, `${name} is missing from it`);
    if (actual !== size) throw invalid(source.description, `${name} has ${actual} bytes, the manifest says ${size}`);
    if ((await source.sha256(name)) !== sha256)
      throw invalid(source.description, `${name} does not match its SHA-256 in the manifest: the file is damaged`);
  }
  const missing = [];
  for (const archive of manifest.archives)
    if (!archive.included && !(await storage.has(archive.sha256))) missing.push(archive.sha256);
  if (missing.length > 0) {
    const base =
      manifest.base === null ? 'an earlier export' : `the export ${manifest.base.id} of ${manifest.base.createdAt}`;
    throw invalid(
      source.description,
      `it is incremental: ${missing.length === 1 ? 'an archive it needs is' : `${missing.length} archives it needs are`} in ${base}, which this store has not imported; import that one first`,
    );
  }
  const byDownload = new Map<string, ExportManifest['archives'][number]>();
  for (const archive of manifest.archives) for (const url of archive.downloads) byDownload.set(url, archive);
  return { manifest, byDownload };
}

/** The export file seen as the upstream a sync reads: its documents, and archives from the file (or, left out of an incremental one, from this store). */
function exportAsUpstream(
  source: ExportSource,
  verified: VerifiedExport,
  storage: ArchiveStorage,
  maxArchiveBytes: number,
): Upstream {
  const { manifest, byDownload } = verified;
  const notInFile = (url: string): AppError =>
    new AppError(
      'archive_not_found',
      said`the export file holds no archive for ${url.slice(0, 200)} (the exporting store did not list that release)`,
    );
  return {
    url: `${source.description} (exported from ${manifest.upstream} on ${manifest.createdAt})`,
    async document(name, etag) {
      const document = manifest.documents.find((d) => d.name === name);
      if (document === undefined)
        throw new AppError('invalid_mirror_file', said`the export file holds no ${name}.json`);
      if (etag !== null && document.etag === etag) return { kind: 'unchanged' };
      const body = await source.read(documentEntry(name));
      // Checked before, checked again as it is read: the file may have changed since.
      if (sha256Of(body) !== document.sha256)
        throw new AppError(
          'invalid_mirror_file',
          said`${source.description}: ${name}.json changed since the file was checked; nothing was changed`,
        );
      return { kind: 'fetched', body: body.toString('utf8'), etag: document.etag };
    },
    async archive(url) {
      const archive = byDownload.get(url);
      if (archive === undefined) throw notInFile(url);
      if (archive.size > maxArchiveBytes)
        throw new AppError(
          'payload_too_large',
          said`the archive has ${archive.size} bytes, more than APPSTORE_MAX_ARCHIVE_MIB allows (${maxArchiveBytes})`,
        );
      let bytes: Buffer;
      if (archive.included) bytes = await source.read(archiveEntry(archive.sha256));
      else {
        const stream = await storage.open(archive.sha256);
        if (stream === null) throw notInFile(url);
        const chunks: Buffer[] = [];
        for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
        bytes = Buffer.concat(chunks);
      }
      // Checked before, checked again as it is read: the file may have changed since.
      if (sha256Of(bytes) !== archive.sha256)
        throw new AppError(
          'invalid_mirror_file',
          said`the archive for ${url.slice(0, 200)} changed since the file was checked`,
        );
      return bytes;
    },
    async archiveSize(url) {
      return byDownload.get(url)?.size ?? null;
    },
    async kept() {
      const document = manifest.documents.find((d) => d.name === KEPT_DOCUMENT);
      if (document === undefined) return null;
      const body = await source.read(documentEntry(KEPT_DOCUMENT));
      if (sha256Of(body) !== document.sha256)
        throw new AppError(
          'invalid_mirror_file',
          said`${source.description}: kept.json changed since the file was checked; nothing was changed`,
        );
      return body.toString('utf8');
    },
  };
}

/**
 * `appstore mirror import FILE`: the whole file is checked first (a damaged one is refused whole,
 * nothing changed), then applied as a sync from it would be: the same policy, the same
 * certificate and signature checks, one transaction.
 */
export async function importMirror(
  acting: Acting,
  deps: MirrorDeps,
  source: ExportSource,
  options: ImportOptions,
): Promise<SyncReport> {
  requireAdmin(acting, said`import a mirror export.`);
  const verified = await verifyExport(source, deps.storage);
  const { manifest } = verified;
  const last = await deps.store.lastImport();
  if (last !== null && !options.allowOlder && manifest.createdAt < last.createdAt) {
    throw invalid(
      source.description,
      `it was made on ${manifest.createdAt}, before the export imported last (${last.exportId}, made on ${last.createdAt}); importing it would take the store back to what the connected store had then. To bring the store up to date, import a file exported after ${last.createdAt} (the newest one); to go back on purpose, pass --older`,
    );
  }
  // A file from another upstream than the configured one is imported (the operator may be moving
  // to it), but said: its apps replace those of the configured upstream.
  const otherUpstream =
    manifest.upstream === deps.upstream.url
      ? []
      : [
          `the file was exported from the upstream ${manifest.upstream}, but this store's APPSTORE_MIRROR_UPSTREAM is ${deps.upstream.url}: its apps were taken all the same; the next sync from ${deps.upstream.url} takes that one's instead`,
        ];
  try {
    const report = await syncMirror(
      acting,
      { ...deps, upstream: exportAsUpstream(source, verified, deps.storage, options.maxArchiveBytes) },
      'mirror.imported',
      { exportId: manifest.id, exportCreatedAt: manifest.createdAt },
    );
    for (const warning of otherUpstream) deps.log(`mirror: ${warning}`);
    return { ...report, problems: [...otherUpstream, ...report.problems] };
  } catch (error) {
    // The sync's wording speaks of an upstream; here it is the file.
    if (isAppError(error) && (error.code === 'upstream_unusable' || error.code === 'upstream_unavailable'))
      throw invalid(source.description, error.detail);
    throw error;
  }
}

export interface ImportOptions {
  /** APPSTORE_MAX_ARCHIVE_MIB, as a sync applies it: a larger archive is not taken. */
  readonly maxArchiveBytes: number;
  /** Import a file older than the one imported last (it takes the store back). */
  readonly allowOlder: boolean;
}
