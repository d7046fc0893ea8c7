import { envReader, parseSwitch, readSecret } from './values.ts';
import type { Env } from './values.ts';

/**
 * Where the archives this store hosts live (mirror mode, docs/mirror.md): a directory under the
 * data directory, or, when several nodes serve one store, a bucket of S3-compatible object
 * storage (AWS S3, MinIO, Ceph RGW, Garage, R2) that every node reads. Setting
 * APPSTORE_ARCHIVES_S3_BUCKET chooses the bucket.
 */
export type ArchiveStorageSettings = { readonly kind: 'directory' } | S3Settings;

export interface S3Settings {
  readonly kind: 's3';
  readonly bucket: string;
  /** Key prefix inside the bucket, ending in '/' when set ('' for the bucket's root). */
  readonly prefix: string;
  /** The service's URL (MinIO, Ceph, Garage, R2); null: AWS S3 of the region. */
  readonly endpoint: string | null;
  readonly region: string;
  /** Path-style URLs (endpoint/bucket/key), which most self-hosted stores need. */
  readonly pathStyle: boolean;
  /** Null: the AWS SDK's own chain (AWS_ACCESS_KEY_ID…, ~/.aws, an instance role). */
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string } | null;
}

export const ARCHIVE_VARIABLES = [
  'APPSTORE_ARCHIVES_S3_BUCKET',
  'APPSTORE_ARCHIVES_S3_PREFIX',
  'APPSTORE_ARCHIVES_S3_ENDPOINT',
  'APPSTORE_ARCHIVES_S3_REGION',
  'APPSTORE_ARCHIVES_S3_PATH_STYLE',
  'APPSTORE_ARCHIVES_S3_ACCESS_KEY_ID',
  'APPSTORE_ARCHIVES_S3_SECRET_ACCESS_KEY_FILE',
] as const;

/** Bucket names as S3 allows them (3–63 lower-case letters, digits, dots and hyphens). */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

export function parseArchiveStorage(env: Env, cwd: string, problems: string[]): ArchiveStorageSettings {
  const get = envReader(env);
  const bucket = get('APPSTORE_ARCHIVES_S3_BUCKET');
  if (bucket === undefined) {
    const stray = ARCHIVE_VARIABLES.filter((name) => get(name) !== undefined);
    if (stray.length > 0)
      problems.push(`${stray.join(', ')}: object storage needs APPSTORE_ARCHIVES_S3_BUCKET as well`);
    return { kind: 'directory' };
  }
  if (!BUCKET.test(bucket))
    problems.push(
      `APPSTORE_ARCHIVES_S3_BUCKET: '${bucket.slice(0, 80)}' is not a bucket name (3 to 63 lower-case letters, digits, dots and hyphens)`,
    );

  const prefixRaw = (get('APPSTORE_ARCHIVES_S3_PREFIX') ?? '').replace(/^\/+|\/+$/g, '');
  if (
    !/^[A-Za-z0-9._/-]{0,200}$/.test(prefixRaw) ||
    prefixRaw.split('/').some((part) => part === '..' || part === '.')
  ) {
    problems.push(
      `APPSTORE_ARCHIVES_S3_PREFIX: '${prefixRaw.slice(0, 80)}' is not a key prefix (letters, digits, '.', '_', '-' and '/', up to 200)`,
    );
  }
  const prefix = prefixRaw === '' ? '' : `${prefixRaw}/`;

  const endpointRaw = get('APPSTORE_ARCHIVES_S3_ENDPOINT');
  let endpoint: string | null = null;
  if (endpointRaw !== undefined) {
    try {
      const url = new URL(endpointRaw);
      if (
        (url.protocol !== 'https:' && url.protocol !== 'http:') ||
        url.username !== '' ||
        url.password !== '' ||
        url.search !== '' ||
        url.hash !== ''
      )
        throw new Error('shape');
      endpoint = url.href.replace(/\/+$/, '');
    } catch {
      // The value is not repeated: it may hold a password.
      problems.push(
        'APPSTORE_ARCHIVES_S3_ENDPOINT: expected an http(s) URL without credentials, query or fragment, such as https://minio.internal:9000',
      );
    }
  }
  const region = get('APPSTORE_ARCHIVES_S3_REGION') ?? 'us-east-1';
  if (!/^[a-z0-9-]{1,40}$/.test(region))
    problems.push(`APPSTORE_ARCHIVES_S3_REGION: '${region.slice(0, 40)}' is not a region name such as eu-west-1`);
  // A self-hosted store is reached by path (endpoint/bucket/key); AWS by the bucket's host name.
  const pathStyle = parseSwitch(
    'APPSTORE_ARCHIVES_S3_PATH_STYLE',
    get('APPSTORE_ARCHIVES_S3_PATH_STYLE'),
    problems,
    endpoint !== null,
  );

  const keyId = get('APPSTORE_ARCHIVES_S3_ACCESS_KEY_ID');
  const secretFile = get('APPSTORE_ARCHIVES_S3_SECRET_ACCESS_KEY_FILE');
  let credentials: S3Settings['credentials'] = null;
  if ((keyId === undefined) !== (secretFile === undefined)) {
    problems.push(
      'APPSTORE_ARCHIVES_S3_ACCESS_KEY_ID and APPSTORE_ARCHIVES_S3_SECRET_ACCESS_KEY_FILE: set both, or neither (the AWS SDK then finds credentials itself)',
    );
  } else if (keyId !== undefined && secretFile !== undefined) {
    const secret = readSecret('APPSTORE_ARCHIVES_S3_SECRET_ACCESS_KEY_FILE', secretFile, cwd, problems);
    if (secret !== null) credentials = { accessKeyId: keyId, secretAccessKey: secret };
  }
  return { kind: 's3', bucket, prefix, endpoint, region, pathStyle, credentials };
}
