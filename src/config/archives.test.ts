import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { parseArchiveStorage } from './archives.ts';

const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'appstore-config-archives-'));
after(() => fs.rmSync(cwd, { recursive: true, force: true }));
fs.writeFileSync(path.join(cwd, 'secret'), 'a-secret-key\n');
fs.writeFileSync(path.join(cwd, 'two-lines'), 'a\nb\n');

const parse = (env: Record<string, string>) => {
  const problems: string[] = [];
  const settings = parseArchiveStorage(env, cwd, problems);
  return { settings, problems };
};

describe('archive storage settings', () => {
  test('a directory under the data directory when no bucket is set', () => {
    assert.deepEqual(parse({}), { settings: { kind: 'directory' }, problems: [] });
  });

  test('a bucket at a self-hosted endpoint: path-style, the prefix ends in a slash, the secret read from its file', () => {
    const { settings, problems } = parse({
      APPSTORE_ARCHIVES_S3_BUCKET: 'appstore-archives',
      APPSTORE_ARCHIVES_S3_PREFIX: '/mirror/',
      APPSTORE_ARCHIVES_S3_ENDPOINT: 'https://minio.internal:9000/',
      APPSTORE_ARCHIVES_S3_ACCESS_KEY_ID: 'key-id',
      APPSTORE_ARCHIVES_S3_SECRET_ACCESS_KEY_FILE: 'secret',
    });
    assert.deepEqual(problems, []);
    assert.deepEqual(settings, {
      kind: 's3',
      bucket: 'appstore-archives',
      prefix: 'mirror/',
      endpoint: 'https://minio.internal:9000',
      region: 'us-east-1',
      pathStyle: true,
      credentials: { accessKeyId: 'key-id', secretAccessKey: 'a-secret-key' },
    });
  });

  test('AWS itself: host-style URLs and the SDK finds the credentials', () => {
    const { settings, problems } = parse({
      APPSTORE_ARCHIVES_S3_BUCKET: 'archives.example.org',
      APPSTORE_ARCHIVES_S3_REGION: 'eu-west-1',
    });
    assert.deepEqual(problems, []);
    assert.deepEqual(settings, {
      kind: 's3',
      bucket: 'archives.example.org',
      prefix: '',
      endpoint: null,
      region: 'eu-west-1',
      pathStyle: false,
      credentials: null,
    });
  });

  test('each wrong value is reported, naming its variable', () => {
    const { problems } = parse({
      APPSTORE_ARCHIVES_S3_BUCKET: 'Not_A_Bucket',
      APPSTORE_ARCHIVES_S3_PREFIX: 'a/../b',
      APPSTORE_ARCHIVES_S3_ENDPOINT: 'https://user:pw@minio.internal',
      APPSTORE_ARCHIVES_S3_REGION: 'EU WEST',
      APPSTORE_ARCHIVES_S3_PATH_STYLE: 'maybe',
      APPSTORE_ARCHIVES_S3_ACCESS_KEY_ID: 'key-id',
      APPSTORE_ARCHIVES_S3_SECRET_ACCESS_KEY_FILE: 'two-lines',
    });
    assert.deepEqual(
      problems.map((p) => p.slice(0, p.indexOf(':'))),
      [
        'APPSTORE_ARCHIVES_S3_BUCKET',
        'APPSTORE_ARCHIVES_S3_PREFIX',
        'APPSTORE_ARCHIVES_S3_ENDPOINT',
        'APPSTORE_ARCHIVES_S3_REGION',
        'APPSTORE_ARCHIVES_S3_PATH_STYLE',
        'APPSTORE_ARCHIVES_S3_SECRET_ACCESS_KEY_FILE',
      ],
    );
    assert.ok(
      problems.every((p) => !p.includes('pw@')),
      "the endpoint's password is not repeated",
    );
  });

  test('half a key pair, or S3 variables without a bucket, are reported', () => {
    assert.match(
      parse({ APPSTORE_ARCHIVES_S3_BUCKET: 'abc', APPSTORE_ARCHIVES_S3_ACCESS_KEY_ID: 'key-id' }).problems.join(),
      /set both, or neither/,
    );
    assert.match(
      parse({ APPSTORE_ARCHIVES_S3_ENDPOINT: 'https://minio.internal' }).problems.join(),
      /APPSTORE_ARCHIVES_S3_ENDPOINT: object storage needs APPSTORE_ARCHIVES_S3_BUCKET/,
    );
  });
});
