import type * as Sdk from '@aws-sdk/client-s3';
import type { S3Settings } from '../config/archives.ts';
import { archiveKey, sha256OfKey } from '../domain/archives/archive-storage.ts';
import type { ArchiveStorage } from '../domain/archives/archive-storage.ts';
import { AppError } from '../errors.ts';

/** How long one request to the object storage may take before it counts as unreachable. */
const CONNECT_TIMEOUT_MS = 5_000;
const REQUEST_TIMEOUT_MS = 60_000;

const notFound = (error: unknown): boolean => {
  const { name, $metadata } = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return name === 'NotFound' || name === 'NoSuchKey' || $metadata?.httpStatusCode === 404;
};

/**
 * Archives in a bucket of S3-compatible storage, which every node of the store reads:
 * one object per SHA-256, under the same key layout as the directory (`xx/<sha>.tar.gz` after
 * the prefix). A PUT is whole or nothing, and carries the SHA-256 as its checksum, so a store
 * that checks (AWS S3, MinIO, Ceph RGW) refuses bytes damaged on the way. Nodes stream archives
 * from it rather than redirect to it (docs/decisions.md): the bucket stays private, and a
 * Nextcloud server needs to reach the store only.
 *
 * The SDK is loaded on first use, so a store keeping archives in a directory never loads it.
 */
export function s3ArchiveStorage(settings: S3Settings): ArchiveStorage {
  const description = `s3://${settings.bucket}/${settings.prefix}${settings.endpoint === null ? '' : ` at ${settings.endpoint}`}`;
  const key = (sha256: string): string => `${settings.prefix}${archiveKey(sha256)}`;
  let connection: Promise<{ sdk: typeof Sdk; client: Sdk.S3Client }> | null = null;
  const connect = (): Promise<{ sdk: typeof Sdk; client: Sdk.S3Client }> =>
    (connection ??= (async () => {
      // The SDK warns, once per process, that its releases after January 2027 need Node 22; the
      // version in package.json is pinned, and the warning would only end up in every CLI answer.
      process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
      // The bundle (esbuild) loads the SDK's CommonJS build, whose exports then sit under `default`.
      const loaded = (await import('@aws-sdk/client-s3')) as typeof Sdk & { default?: typeof Sdk };
      const sdk = typeof loaded.S3Client === 'function' ? loaded : (loaded.default as typeof Sdk);
      const client = new sdk.S3Client({
        region: settings.region,
        forcePathStyle: settings.pathStyle,
        ...(settings.endpoint === null ? {} : { endpoint: settings.endpoint }),
        ...(settings.credentials === null ? {} : { credentials: settings.credentials }),
        requestHandler: { connectionTimeout: CONNECT_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS },
      });
      return { sdk, client };
    })());
  const unavailable = (action: string, error: unknown): AppError => {
    const { name, message } = error as { name?: string; message?: string };
    const detail = `${name ?? 'Error'}: ${String(message ?? error).slice(0, 200)}`;
    return new AppError(
      'archive_storage_unavailable',
      `The archive storage ${description} could not ${action} (${detail}); check APPSTORE_ARCHIVES_S3_* and that the service is up.`,
    );
  };
  return {
    description,
    async has(sha256) {
      const { sdk, client } = await connect();
      try {
        await client.send(new sdk.HeadObjectCommand({ Bucket: settings.bucket, Key: key(sha256) }));
        return true;
      } catch (error) {
        if (notFound(error)) return false;
        throw unavailable('be asked for an archive', error);
      }
    },
    async put(sha256, bytes) {
      const { sdk, client } = await connect();
      try {
        await client.send(
          new sdk.PutObjectCommand({
            Bucket: settings.bucket,
            Key: key(sha256),
            Body: bytes,
            ContentLength: bytes.length,
            ContentType: 'application/gzip',
            ChecksumSHA256: Buffer.from(sha256, 'hex').toString('base64'),
          }),
        );
      } catch (error) {
        throw unavailable('store an archive', error);
      }
    },
    async open(sha256, range) {
      const { sdk, client } = await connect();
      try {
        const answer = await client.send(
          new sdk.GetObjectCommand({
            Bucket: settings.bucket,
            Key: key(sha256),
            ...(range === undefined ? {} : { Range: `bytes=${range.start}-${range.end}` }),
          }),
        );
        return (answer.Body as NodeJS.ReadableStream | undefined) ?? null;
      } catch (error) {
        if (notFound(error)) return null;
        throw unavailable('read an archive', error);
      }
    },
    async delete(sha256) {
      const { sdk, client } = await connect();
      try {
        await client.send(new sdk.DeleteObjectCommand({ Bucket: settings.bucket, Key: key(sha256) }));
      } catch (error) {
        if (notFound(error)) return;
        throw unavailable('delete an archive', error);
      }
    },
    async *list() {
      const { sdk, client } = await connect();
      let token: string | undefined;
      do {
        let page: Sdk.ListObjectsV2CommandOutput;
        try {
          page = await client.send(
            new sdk.ListObjectsV2Command({
              Bucket: settings.bucket,
              Prefix: settings.prefix,
              ...(token === undefined ? {} : { ContinuationToken: token }),
            }),
          );
        } catch (error) {
          throw unavailable('list the archives', error);
        }
        for (const object of page.Contents ?? []) {
          const sha256 = object.Key === undefined ? null : sha256OfKey(object.Key.slice(settings.prefix.length));
          if (sha256 !== null) yield { sha256, storedAt: object.LastModified ?? new Date(0) };
        }
        token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
      } while (token !== undefined);
    },
  };
}
