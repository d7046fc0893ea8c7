/**
 * Where the archives this store serves live, by their SHA-256: a directory, or S3-compatible
 * storage (archives/*-storage.ts). Releases published here are kept in it (kept-archives.ts), and
 * in mirror mode the releases taken from the upstream too. One key layout everywhere.
 */

const SHA256 = /^[0-9a-f]{64}$/;

export const isSha256 = (value: string): boolean => SHA256.test(value);

/** Where an archive lives under a storage's root, the same in a directory, a bucket and an export file: `xx/<sha256>.tar.gz`. */
export function archiveKey(sha256: string): string {
  if (!SHA256.test(sha256)) throw new Error(`not a SHA-256: ${sha256.slice(0, 80)}`);
  return `${sha256.slice(0, 2)}/${sha256}.tar.gz`;
}

/** The SHA-256 a key of `archiveKey` names (after any prefix), or null for another name. */
export function sha256OfKey(key: string): string | null {
  const match = /(?:^|\/)([0-9a-f]{2})\/([0-9a-f]{64})\.tar\.gz$/.exec(key);
  if (match === null || match[2]?.slice(0, 2) !== match[1]) return null;
  return match[2] ?? null;
}

export interface StoredArchive {
  readonly sha256: string;
  readonly storedAt: Date;
}

export interface ArchiveStorage {
  /** How the operator knows it: "directory /var/lib/appstore/archives", "s3://bucket/prefix". */
  readonly description: string;
  has(sha256: string): Promise<boolean>;
  /** Stores the bytes under their SHA-256, whole or not at all (a reader never sees half a file). */
  put(sha256: string, bytes: Buffer): Promise<void>;
  /** The stored bytes from `start` to `end` inclusive (all when no range); null when absent. */
  open(sha256: string, range?: { readonly start: number; readonly end: number }): Promise<NodeJS.ReadableStream | null>;
  /** Removes the archive; nothing happens when it is absent. */
  delete(sha256: string): Promise<void>;
  /** Every archive stored, by SHA-256, with when it was stored; in no particular order. */
  list(): AsyncIterable<StoredArchive>;
}
