import fs from 'node:fs';
import type { Kysely } from 'kysely';
import type { Config } from './config/config.ts';
import { loadTrust } from './domain/certificates/trust.ts';
import type { Trust } from './domain/certificates/trust.ts';
import type { ArchiveStorage } from './domain/archives/archive-storage.ts';
import { archivePath } from './domain/archives/kept-archives.ts';
import type { MirrorDeps } from './domain/mirror/mirror-ports.ts';
import type { TrustContext } from './downloads/trust-context.ts';
import { createUpstreamClient } from './downloads/upstream-client.ts';
import { AppError, isAppError } from './errors.ts';
import type { Database } from './storage/schema.ts';
import { mirrorRepository } from './storage/repositories/mirror.repository.ts';
import { servedArchiveRepository } from './storage/repositories/served-archive.repository.ts';

/** Mirror mode as the container offers it: the sync's dependencies (null when not configured) and the archives it serves. */
export interface MirrorService {
  readonly deps: MirrorDeps | null;
  readonly storage: ArchiveStorage;
  readonly archives: ReturnType<typeof servedArchiveRepository>;
}

/** The upstream's code-signing root and CRL, read at each sync (a replaced file counts at the next one). */
async function upstreamTrust(
  rootFile: string,
  crlFile: string | null,
  now: Date,
  warn: (message: string) => void,
): Promise<Trust> {
  try {
    const root = await fs.promises.readFile(rootFile, 'utf8');
    const crl = crlFile === null ? null : await fs.promises.readFile(crlFile, 'utf8');
    return await loadTrust(root, crl, now, warn);
  } catch (error) {
    const detail = isAppError(error) ? error.detail : String(error);
    throw new AppError(
      'configuration_error',
      `The upstream's code-signing root (APPSTORE_MIRROR_ROOT_CERT) or CRL (APPSTORE_MIRROR_CRL) cannot be used: ${detail}`,
    );
  }
}

export function createMirrorService(
  config: Config,
  db: Kysely<Database>,
  storage: ArchiveStorage,
  publicUrl: string,
  now: () => Date,
  downloadTrust: TrustContext | undefined,
): MirrorService {
  const settings = config.mirror;
  const log = (message: string): void => void process.stderr.write(`${message}\n`);
  const deps: MirrorDeps | null =
    settings === null
      ? null
      : {
          upstream: createUpstreamClient(settings.upstream, {
            timeoutMs: config.limits.downloadTimeoutMs,
            maxBytes: config.limits.maxArchiveBytes,
            maxRedirects: config.limits.maxRedirects,
            allowPrivate: config.downloadAllowPrivate,
            ...(downloadTrust === undefined ? {} : { trust: downloadTrust }),
          }),
          storage,
          store: mirrorRepository(db),
          policy: settings.policy,
          trust: () => upstreamTrust(settings.rootCertFile, settings.crlFile, now(), log),
          archiveUrl: (appId, version, nightly) => `${publicUrl}${archivePath(appId, version, nightly)}`,
          now,
          log,
        };
  return { deps, storage, archives: servedArchiveRepository(db) };
}

export const mirrorNotConfigured = (): AppError =>
  new AppError(
    'mirror_not_configured',
    "This store follows no upstream: set APPSTORE_MIRROR_ROOT_CERT (the upstream's root.crt) and, for another store than apps.nextcloud.com, APPSTORE_MIRROR_UPSTREAM (docs/mirror.md).",
  );
