import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-stream';
import type { ExportSink, ExportSource } from '../domain/mirror/export-format.ts';
import { AppError } from '../errors.ts';

/**
 * The mirror's export file (domain/mirror/export-format.ts): a plain POSIX tar, uncompressed (the
 * archives in it are gzip already), so that an import can check each entry and read it again at
 * its place without unpacking anything to disk.
 */

const BLOCK = 512;
/** Entry names the format uses (manifest, documents, archives by SHA-256): nothing else is read. */
const ENTRY_NAME =
  /^(manifest\.json|manifest\.sha256|documents\/[a-z_]{1,20}\.json|archives\/[0-9a-f]{2}\/[0-9a-f]{64}\.tar\.gz)$/;
/** An export of every release of the original store holds about 20,000 archives. */
const MAX_ENTRIES = 200_000;
const MIB = 1024 * 1024;
/**
 * The largest entry of each kind an export holds (issue 49): checked from the tar headers, before
 * anything is read, so a header that declares gigabytes (a sparse file costs nothing on disk) is
 * refused instead of read into memory. The manifest's checksum is 64 hex digits; the manifest
 * and the documents hold the whole catalogue (the original store's apps.json is about 40 MB);
 * an archive is bounded again by APPSTORE_MAX_ARCHIVE_MIB (at most 1 GiB) when it is read.
 */
function entryLimit(name: string): number {
  if (name === 'manifest.sha256') return 1024;
  if (name === 'manifest.json') return 64 * MIB;
  if (name.startsWith('documents/')) return 256 * MIB;
  return 1024 * MIB;
}
const sizeText = (bytes: number): string =>
  bytes < MIB ? `${Math.ceil(bytes / 1024)} KiB` : `${Math.round(bytes / MIB)} MiB`;

/** Writes an export to `file`: built beside it under another name and linked into place when complete (never over an existing file). */
export function createExportFile(file: string): ExportSink {
  const cannot = (why: string): AppError =>
    new AppError('invalid_mirror_file', `Cannot write the export to ${file}: ${why}. Nothing was written.`);
  if (fs.existsSync(file))
    throw cannot('a file of that name exists (an export never replaces one: remove it, or choose another name)');
  const partial = `${file}.${randomBytes(6).toString('hex')}.partial`;
  let descriptor: number;
  try {
    descriptor = fs.openSync(partial, 'wx', 0o640);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw cannot(
      code === 'ENOENT'
        ? 'its directory does not exist'
        : code === 'EACCES'
          ? 'its directory is not writable'
          : `${code ?? 'the file cannot be created'}`,
    );
  }
  const pack = tar.pack();
  const output = fs.createWriteStream(partial, { fd: descriptor });
  const written = pipeline(pack, output);
  // Kept from becoming an unhandled rejection before finish() or abandon() awaits it.
  written.catch(() => undefined);
  const entryOptions = (name: string, size: number) => ({
    name,
    size,
    mode: 0o644,
    mtime: new Date(0),
    type: 'file' as const,
  });
  return {
    async add(name, size, bytes) {
      if (Buffer.isBuffer(bytes)) {
        await new Promise<void>((resolve, reject) =>
          pack.entry(entryOptions(name, size), bytes, (error) => (error ? reject(error) : resolve())),
        );
        return;
      }
      await new Promise<void>((resolve, reject) => {
        const entry = pack.entry(entryOptions(name, size), (error) => (error ? reject(error) : resolve()));
        pipeline(bytes, entry).catch(reject);
      });
    },
    async finish() {
      pack.finalize();
      await written;
      const handle = await fs.promises.open(partial, 'r');
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
      // Linked into place, never over a file that appeared meanwhile (an export replaces nothing).
      try {
        await fs.promises.link(partial, file);
      } catch (error) {
        await fs.promises.rm(partial, { force: true });
        throw cannot(
          (error as NodeJS.ErrnoException).code === 'EEXIST'
            ? 'a file of that name appeared while it was written'
            : String((error as Error).message),
        );
      }
      await fs.promises.rm(partial, { force: true });
    },
    async abandon() {
      pack.destroy();
      output.destroy();
      await fs.promises.rm(partial, { force: true });
    },
  };
}

const invalidFile = (file: string, problem: string): AppError =>
  new AppError(
    'invalid_mirror_file',
    `${file} cannot be used as an export file (${problem}): nothing was changed. Copy the file again, or export it again on the connected store.`,
  );

/** An octal number field of a tar header (NUL- or space-terminated); null when it is not one. */
function octal(field: Buffer): number | null {
  const text = field
    .toString('latin1')
    .replace(/[\0 ]+$/, '')
    .replace(/^ +/, '');
  if (!/^[0-7]{1,12}$/.test(text)) return null;
  return Number.parseInt(text, 8);
}

/**
 * Opens an export file and indexes its entries (name → place and size) from the tar headers,
 * refusing what the format never writes: links, directories, other names, a header whose
 * checksum is wrong, an entry running past the end of the file.
 */
export async function openExportFile(file: string): Promise<ExportSource> {
  let handle: fs.promises.FileHandle;
  try {
    // A directory, a pipe or a device is not an export (and opening a pipe would wait forever).
    if (!(await fs.promises.stat(file)).isFile())
      throw new AppError('invalid_mirror_file', `${file} is not a regular file: give the path of an export file.`);
    handle = await fs.promises.open(file, 'r');
  } catch (error) {
    if (error instanceof AppError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new AppError(
      'invalid_mirror_file',
      `${file === '' ? 'The export file (an empty path)' : file} ${code === 'ENOENT' ? 'does not exist' : 'cannot be read'}.`,
    );
  }
  try {
    const { size: fileSize } = await handle.stat();
    const entries = new Map<string, { offset: number; size: number }>();
    const header = Buffer.alloc(BLOCK);
    let offset = 0;
    let ended = false;
    while (offset + BLOCK <= fileSize) {
      await handle.read(header, 0, BLOCK, offset);
      if (header.every((byte) => byte === 0)) {
        ended = true;
        break;
      }
      let sum = 0;
      for (let i = 0; i < BLOCK; i += 1) sum += i >= 148 && i < 156 ? 32 : (header[i] ?? 0);
      if (octal(header.subarray(148, 156)) !== sum)
        throw invalidFile(file, `the tar header at byte ${offset} is damaged`);
      const type = String.fromCharCode(header[156] ?? 0);
      const prefix = header.subarray(345, 500).toString('utf8').replace(/\0.*$/s, '');
      const base = header.subarray(0, 100).toString('utf8').replace(/\0.*$/s, '');
      const name = prefix === '' ? base : `${prefix}/${base}`;
      const size = octal(header.subarray(124, 136));
      if ((type !== '0' && type !== '\0') || !ENTRY_NAME.test(name))
        throw invalidFile(file, `it holds ${JSON.stringify(name.slice(0, 120))}, which an export never does`);
      if (size === null) throw invalidFile(file, `the size of ${name} is unreadable`);
      if (size > entryLimit(name))
        throw invalidFile(
          file,
          `${name} declares ${size} bytes, more than an export's ever holds (${sizeText(entryLimit(name))})`,
        );
      if (entries.has(name)) throw invalidFile(file, `${name} appears twice`);
      if (entries.size >= MAX_ENTRIES) throw invalidFile(file, `it has more than ${MAX_ENTRIES} entries`);
      const start = offset + BLOCK;
      if (start + size > fileSize) throw invalidFile(file, `${name} runs past the end of the file: it was cut short`);
      entries.set(name, { offset: start, size });
      offset = start + Math.ceil(size / BLOCK) * BLOCK;
    }
    if (!ended) throw invalidFile(file, 'the tar archive has no end: it was cut short');
    const place = (name: string): { offset: number; size: number } => {
      const found = entries.get(name);
      if (found === undefined) throw invalidFile(file, `${name} is missing from it`);
      return found;
    };
    return {
      description: file,
      entries: new Map([...entries].map(([name, { size }]) => [name, size])),
      async read(name) {
        const { offset: at, size } = place(name);
        const bytes = Buffer.alloc(size);
        const reader = await fs.promises.open(file, 'r');
        try {
          const { bytesRead } = await reader.read(bytes, 0, size, at);
          if (bytesRead !== size) throw invalidFile(file, `${name} was cut short`);
        } finally {
          await reader.close();
        }
        return bytes;
      },
      async sha256(name) {
        const { offset: at, size } = place(name);
        const hash = createHash('sha256');
        if (size > 0)
          for await (const chunk of fs.createReadStream(file, { start: at, end: at + size - 1 }))
            hash.update(chunk as Buffer);
        return hash.digest('hex');
      },
    };
  } finally {
    await handle.close();
  }
}
