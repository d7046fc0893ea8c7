import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { archiveKey, sha256OfKey } from '../domain/archives/archive-storage.ts';
import type { ArchiveStorage } from '../domain/archives/archive-storage.ts';
import { FileBody } from './file-body.ts';

/**
 * Archives in a directory (by default `archives/` under the data directory), one file
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
      // Piped into a response, two buffers per download instead of a new one per chunk (file-body.ts).
      return new FileBody(target, range);
    },
    async delete(sha256) {
      await fs.promises.rm(file(sha256), { force: true });
    },
    async *list() {
      let folders: string[];
      try {
        folders = await fs.promises.readdir(root);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw error;
      }
      for (const folder of folders.sort()) {
        if (!/^[0-9a-f]{2}$/.test(folder)) continue;
        for (const name of (await fs.promises.readdir(path.join(root, folder))).sort()) {
          const sha256 = sha256OfKey(`${folder}/${name}`);
          if (sha256 === null) continue;
          try {
            yield { sha256, storedAt: (await fs.promises.stat(path.join(root, folder, name))).mtime };
          } catch {
            // Deleted since the folder was read.
          }
        }
      }
    },
  };
}
