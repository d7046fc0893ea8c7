import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { ArchiveStorage } from '../domain/mirror/sync-mirror.ts';

const SHA256 = /^[0-9a-f]{64}$/;

/** Where an archive lives relative to the storage's root, the same in a directory and a bucket: `xx/<sha256>.tar.gz`. */
export function archiveKey(sha256: string): string {
  if (!SHA256.test(sha256)) throw new Error(`not a SHA-256: ${sha256.slice(0, 80)}`);
  return `${sha256.slice(0, 2)}/${sha256}.tar.gz`;
}

/**
 * Mirrored archives in a directory (by default `archives/` under the data directory), one file
 * per SHA-256 in a folder named by its first two digits. A file is written beside its place and
 * renamed into it, so a reader, or a sync that failed halfway, never leaves half an archive.
 */
export function directoryArchiveStorage(root: string): ArchiveStorage {
  const file = (sha256: string): string => path.join(root, ...archiveKey(sha256).split('/'));
  return {
    description: `directory ${root}`,
    async has(sha256) {
      try {
        return (await fs.promises.stat(file(sha256))).isFile();
      } catch {
        return false;
      }
    },
    async put(sha256, bytes) {
      const target = file(sha256);
      await fs.promises.mkdir(path.dirname(target), { recursive: true });
      const temporary = `${target}.${randomBytes(6).toString('hex')}.part`;
      try {
        await fs.promises.writeFile(temporary, bytes, { flag: 'wx' });
        await fs.promises.rename(temporary, target);
      } catch (error) {
        await fs.promises.rm(temporary, { force: true });
        throw error;
      }
    },
    async open(sha256, range) {
      const target = file(sha256);
      try {
        await fs.promises.access(target, fs.constants.R_OK);
      } catch {
        return null;
      }
      return fs.createReadStream(target, range === undefined ? {} : { start: range.start, end: range.end });
    },
  };
}
