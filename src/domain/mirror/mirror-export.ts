import { createHash, randomBytes } from 'node:crypto';
import { Transform, pipeline } from 'node:stream';
import { AppError, isAppError } from '../../errors.ts';
import { requireAdmin } from '../accounts/authorization.ts';
import type { Acting } from '../audit/audit.ts';
import { syncMirror } from './sync-mirror.ts';
import { DOCUMENTS, MAX_DOCUMENT_BYTES, archiveKey } from './mirror-ports.ts';
import type {
  ArchiveStorage,
  DocumentName,
  MirrorDeps,
  MirroredRelease,
  SyncReport,
  Upstream,
} from './mirror-ports.ts';
import type { KeptEntry } from './kept-releases.ts';

/**
 * `appstore mirror export` / `import` (docs/mirror.md, set-up 3): a connected store writes what it
 * has synced (the upstream's documents and the archives of the releases it lists) into one file;
 * a store without a network imports it as if it synced from it. The file carries a manifest with
 * the SHA-256 and size of every entry, and the manifest's own SHA-256. An import checks all of it
 * before it changes anything, then runs the sync's own checks (certificates against the upstream
 * root and CRL, signatures) and applies the result in one transaction.
 */
export const EXPORT_FORMAT = 'appstore-mirror-export/1';
export const MANIFEST_ENTRY = 'manifest.json';
export const MANIFEST_CHECKSUM_ENTRY = 'manifest.sha256';
/**
 * The documents of an export: the upstream's five, and `kept` (issue 49): the releases the
 * connected store keeps after they left the upstream, in the upstream's own format
 * (`{apps, appapi_apps}`), so the importing store lists them too. Files from before have none.
 */
export type ExportDocument = DocumentName | 'kept';
const KEPT_DOCUMENT: ExportDocument = 'kept';
export const documentEntry = (name: ExportDocument): string => `documents/${name}.json`;
export const archiveEntry = (sha256: string): string => `archives/${archiveKey(sha256)}`;

export interface ExportManifest {
  readonly format: typeof EXPORT_FORMAT;
  /** This export's id: an incremental export names the one it builds on. */
  readonly id: string;
  readonly createdAt: string;
  /** The upstream the exporting store follows. */
  readonly upstream: string;
  /** The export this one is incremental against: its archives are left out of this file. */
  readonly base: { readonly id: string; readonly createdAt: string } | null;
  readonly documents: readonly {
    readonly name: ExportDocument;
    readonly etag: string | null;
    readonly sha256: string;
    readonly size: number;
  }[];
  /** Every archive the listings need; `included` false: in the base export, not in this file. */
  readonly archives: readonly {
    readonly sha256: string;
    readonly size: number;
    readonly included: boolean;
    readonly downloads: readonly string[];
  }[];
}

/** Where an export is written: entries in order, then finished (or abandoned, leaving nothing). */
export interface ExportSink {
  add(name: string, size: number, bytes: Buffer | NodeJS.ReadableStream): Promise<void>;
  finish(): Promise<void>;
  abandon(): Promise<void>;
}

/** An export file opened for reading: its entries by name with their size, each readable any number of times. */
export interface ExportSource {
  readonly description: string;
  readonly entries: ReadonlyMap<string, number>;
  read(name: string): Promise<Buffer>;
  /** The entry's SHA-256, read as a stream (archives can be large). */
  sha256(name: string): Promise<string>;
}

/** Bounds an import holds a file to: the manifest, and each document as a sync reads them (its archives: APPSTORE_MAX_ARCHIVE_MIB). */
const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;
const MAX_CHECKSUM_BYTES = 1024;

const sha256Of = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');

const invalid = (description: string, problem: string): AppError =>
  new AppError(
    'invalid_mirror_file',
    `${description} cannot be imported (${problem}): nothing was changed. Copy the file again, or export it again on the connected store.`,
  );

/** The manifest, checked field by field (a damaged or foreign file is refused, not half-read). */
export function parseExportManifest(text: string, description: string): ExportManifest {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw invalid(description, 'its manifest is not JSON');
  }
  const bad = (what: string): never => {
    throw invalid(description, `its manifest's ${what} is not what ${EXPORT_FORMAT} holds`);
  };
  const record = (value: unknown, what: string): Record<string, unknown> =>
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : bad(what);
  // No control characters: these texts are printed to terminals and written to the audit log.
  const control = (text: string): boolean =>
    [...text].some(
      (c) => (c.codePointAt(0) ?? 0) < 0x20 || ((c.codePointAt(0) ?? 0) >= 0x7f && (c.codePointAt(0) ?? 0) <= 0x9f),
    );
  const text_ = (value: unknown, what: string, max = 2000): string =>
    typeof value === 'string' && value.length <= max && !control(value) ? value : bad(what);
  const sha = (value: unknown, what: string): string =>
    typeof value === 'string' && /^[0-9a-f]{64}$/.test(value) ? value : bad(what);
  const size = (value: unknown, what: string): number =>
    Number.isSafeInteger(value) && (value as number) >= 0 ? (value as number) : bad(what);
  const list = (value: unknown, what: string): unknown[] =>
    Array.isArray(value) && value.length <= 1_000_000 ? value : bad(what);

  const top = record(data, 'top level');
  if (top.format !== EXPORT_FORMAT)
    throw invalid(
      description,
      `it is not an export of this store (format ${JSON.stringify(String(top.format).slice(0, 60))}, expected ${EXPORT_FORMAT})`,
    );
  const base = top.base === null ? null : record(top.base, 'base');
  const documents = list(top.documents, 'documents').map((entry, i) => {
    const d = record(entry, `documents[${i}]`);
    const name = ([...DOCUMENTS, KEPT_DOCUMENT] as const).find((n) => n === d.name) ?? bad(`documents[${i}].name`);
    return {
      name,
      etag: d.etag === null ? null : text_(d.etag, `documents[${i}].etag`, 500),
      sha256: sha(d.sha256, `documents[${i}].sha256`),
      size: size(d.size, `documents[${i}].size`),
    };
  });
  if (new Set(documents.map((d) => d.name)).size !== documents.length) bad('documents (one appears twice)');
  const absent = DOCUMENTS.filter((name) => !documents.some((d) => d.name === name));
  if (absent.length > 0) bad(`documents (${absent.map((name) => `${name}.json`).join(', ')} missing)`);
  const archives = list(top.archives, 'archives').map((entry, i) => {
    const a = record(entry, `archives[${i}]`);
    if (typeof a.included !== 'boolean') bad(`archives[${i}].included`);
    return {
      sha256: sha(a.sha256, `archives[${i}].sha256`),
      size: size(a.size, `archives[${i}].size`),
      included: a.included as boolean,
      downloads: list(a.downloads, `archives[${i}].downloads`).map((url, j) =>
        text_(url, `archives[${i}].downloads[${j}]`),
      ),
    };
  });
  if (new Set(archives.map((a) => a.sha256)).size !== archives.length) bad('archives (one appears twice)');
  return {
    format: EXPORT_FORMAT,
    id: text_(top.id, 'id', 64),
    createdAt: text_(top.createdAt, 'createdAt', 64),
    upstream: text_(top.upstream, 'upstream'),
    base:
      base === null
        ? null
        : { id: text_(base.id, 'base.id', 64), createdAt: text_(base.createdAt, 'base.createdAt', 64) },
    documents,
    archives,
  };
}

/** Reads and checks the manifest of an export file against its recorded SHA-256. */
export async function readManifest(source: ExportSource): Promise<ExportManifest> {
  const size = source.entries.get(MANIFEST_ENTRY);
  if (size === undefined || !source.entries.has(MANIFEST_CHECKSUM_ENTRY))
    throw invalid(source.description, 'it has no manifest: it is not an export of this store, or it was cut short');
  if (size > MAX_MANIFEST_BYTES)
    throw invalid(
      source.description,
      `its manifest has ${size} bytes, more than an export's ever does (${MAX_MANIFEST_BYTES})`,
    );
  // 64 hex digits and a line break: anything much larger is not a checksum, and is not read.
  const checksumSize = source.entries.get(MANIFEST_CHECKSUM_ENTRY) ?? 0;
  if (checksumSize > MAX_CHECKSUM_BYTES)
    throw invalid(
      source.description,
      `its manifest's checksum entry has ${checksumSize} bytes, more than a SHA-256 ever needs (${MAX_CHECKSUM_BYTES})`,
    );
  const manifest = await source.read(MANIFEST_ENTRY);
  const recorded = (await source.read(MANIFEST_CHECKSUM_ENTRY)).toString('utf8').trim();
  if (sha256Of(manifest) !== recorded)
    throw invalid(source.description, "its manifest does not match the manifest's recorded SHA-256");
  return parseExportManifest(manifest.toString('utf8'), source.description);
}

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
      `the export file holds no archive for ${url.slice(0, 200)} (the exporting store did not list that release)`,
    );
  return {
    url: `${source.description} (exported from ${manifest.upstream} on ${manifest.createdAt})`,
    async document(name, etag) {
      const document = manifest.documents.find((d) => d.name === name);
      if (document === undefined) throw new AppError('invalid_mirror_file', `the export file holds no ${name}.json`);
      if (etag !== null && document.etag === etag) return { kind: 'unchanged' };
      const body = await source.read(documentEntry(name));
      // Checked before, checked again as it is read: the file may have changed since.
      if (sha256Of(body) !== document.sha256)
        throw new AppError(
          'invalid_mirror_file',
          `${source.description}: ${name}.json changed since the file was checked; nothing was changed`,
        );
      return { kind: 'fetched', body: body.toString('utf8'), etag: document.etag };
    },
    async archive(url) {
      const archive = byDownload.get(url);
      if (archive === undefined) throw notInFile(url);
      if (archive.size > maxArchiveBytes)
        throw new AppError(
          'payload_too_large',
          `the archive has ${archive.size} bytes, more than APPSTORE_MAX_ARCHIVE_MIB allows (${maxArchiveBytes})`,
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
          `the archive for ${url.slice(0, 200)} changed since the file was checked`,
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
          `${source.description}: kept.json changed since the file was checked; nothing was changed`,
        );
      return body.toString('utf8');
    },
  };
}

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
  requireAdmin(acting, 'import a mirror export.');
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
  requireAdmin(acting, 'export the mirror.');
  try {
    const base = since === null ? null : await readManifest(since);
    const known = new Set(base?.archives.map((a) => a.sha256) ?? []);
    const state = await deps.store.state();
    if (state.documents.size === 0)
      throw new AppError(
        'mirror_not_configured',
        'This store has not synced yet: run appstore mirror sync, then export.',
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
          `The archive ${archive.sha256} of a listed release is missing from ${deps.storage.description}: run appstore mirror sync (it fetches what is missing), then export again.`,
        );
      // Each archive is checked as it is written: a damaged one would make the whole file useless.
      const damaged = (): AppError =>
        new AppError(
          'archive_not_found',
          `The stored archive ${archive.sha256} (${archive.downloads[0] ?? ''}) in ${deps.storage.description} is damaged: its bytes no longer match their SHA-256. Remove it there and run appstore mirror sync, which downloads it again; then export.`,
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
