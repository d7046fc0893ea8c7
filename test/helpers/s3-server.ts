import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';

export interface S3Server {
  /** http://127.0.0.1:PORT */
  readonly endpoint: string;
  readonly bucket: string;
  /** The store's variables for this bucket, with the test credentials (s3rver's own key pair). */
  readonly env: Readonly<Record<string, string>>;
  /** The objects' keys, as s3rver keeps them on disk. */
  keys(): string[];
  /** The bytes of one object. */
  object(key: string): Buffer;
  stop(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A real S3-protocol server (s3rver) on loopback with one bucket, its objects in a temporary
 * directory: what a store with several nodes keeps its archives in. What it does not check that
 * production stores do is in docs/decisions.md.
 */
export async function startS3Server(prefix = 'appstore'): Promise<S3Server> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'appstore-s3-'));
  const bucket = 'archives';
  const secretFile = path.join(directory, 'secret-key');
  fs.writeFileSync(secretFile, 'S3RVER\n', { mode: 0o600 });
  let server: S3rver | null = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: path.join(directory, 'data'),
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const root = path.join(directory, 'data', bucket);
  const walk = (dir: string): string[] =>
    fs.existsSync(dir)
      ? fs
          .readdirSync(dir, { withFileTypes: true })
          .flatMap((entry) =>
            entry.isDirectory() ? walk(path.join(dir, entry.name)) : [path.relative(root, path.join(dir, entry.name))],
          )
      : [];
  const stop = async (): Promise<void> => {
    await server?.close();
    server = null;
  };
  return {
    endpoint,
    bucket,
    env: {
      APPSTORE_ARCHIVES_S3_BUCKET: bucket,
      APPSTORE_ARCHIVES_S3_PREFIX: prefix,
      APPSTORE_ARCHIVES_S3_ENDPOINT: endpoint,
      APPSTORE_ARCHIVES_S3_ACCESS_KEY_ID: 'S3RVER',
      APPSTORE_ARCHIVES_S3_SECRET_ACCESS_KEY_FILE: secretFile,
    },
    // s3rver stores an object's bytes as KEY._S3rver_object beside its metadata.
    keys: () =>
      walk(root)
        .filter((file) => file.endsWith('._S3rver_object'))
        .map((file) => file.slice(0, -'._S3rver_object'.length)),
    object: (key) => fs.readFileSync(path.join(root, `${key}._S3rver_object`)),
    stop,
    async close() {
      await stop();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
