import { createHash } from 'node:crypto';
import { AppError } from '../../errors.ts';
import { archiveKey } from '../archives/archive-storage.ts';
import { DOCUMENTS } from './mirror-ports.ts';
import type { DocumentName } from './mirror-ports.ts';

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
export const KEPT_DOCUMENT: ExportDocument = 'kept';
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

export const sha256Of = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');

export const invalid = (description: string, problem: string): AppError =>
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
