import path from 'node:path';
import type { ArchiveStorageSettings } from '../config/archives.ts';
import type { ArchiveStorage } from '../domain/archives/archive-storage.ts';
import { directoryArchiveStorage } from './directory-archive-storage.ts';
import { s3ArchiveStorage } from './s3-archive-storage.ts';

/** The archive storage the settings name: a bucket, or `archives/` under the data directory. */
export function openArchiveStorage(settings: ArchiveStorageSettings, dataDir: string): ArchiveStorage {
  return settings.kind === 's3' ? s3ArchiveStorage(settings) : directoryArchiveStorage(path.join(dataDir, 'archives'));
}
