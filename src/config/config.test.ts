import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { ConfigError, loadConfig, unknownVariables } from './config.ts';

const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'appstore-config-'));
after(() => fs.rmSync(cwd, { recursive: true, force: true }));
fs.writeFileSync(path.join(cwd, 'ca.pem'), 'x');
fs.mkdirSync(path.join(cwd, 'adir'));
fs.writeFileSync(path.join(cwd, 'afile'), 'x');

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env, cwd);
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    return [...error.problems];
  }
  assert.fail('expected a ConfigError');
}

describe('loadConfig', () => {
  test('defaults: SQLite in ./data, 127.0.0.1:8000, private downloads refused', () => {
    const config = loadConfig({}, cwd);
    assert.equal(config.dataDir, path.join(cwd, 'data'));
    assert.deepEqual(config.database, { kind: 'sqlite', file: path.join(cwd, 'data', 'appstore.sqlite') });
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.port, 8000);
    assert.equal(config.caCertFile, null);
    assert.equal(config.crlFile, null);
    assert.equal(config.downloadAllowPrivate, false);
    assert.equal(config.logLevel, 'info');
    assert.equal(config.trustProxy, false);
    assert.equal(config.secretKeyFile, path.join(cwd, 'data', 'secret.key'));
    assert.equal(config.secretKeyFileConfigured, false);
    assert.deepEqual(config.limits, {
      downloadTimeoutMs: 60_000,
      maxArchiveBytes: 20 * 1024 * 1024,
      maxRedirects: 10,
      uploadsPerDay: 100,
      publishesPerUser: 3,
      publishesAtOnce: 3,
    });
    assert.deepEqual(config.connections, {
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 60_000,
      idleTimeoutMs: 30_000,
      maxPerAddress: 64,
    });
    assert.equal(config.listingBrotliMinSaving, 0.2);
    assert.ok(Object.isFrozen(config));
  });

  test('every variable is read', () => {
    const config = loadConfig(
      {
        APPSTORE_DATA_DIR: 'store',
        APPSTORE_DATABASE_URL: 'postgresql://u:p@db:5432/appstore',
        APPSTORE_HOST: '0.0.0.0',
        APPSTORE_PORT: '9000',
        APPSTORE_CA_CERT: 'ca.pem',
        APPSTORE_CRL: 'ca.pem',
        APPSTORE_DOWNLOAD_ALLOW_PRIVATE: '1',
        APPSTORE_LOG_LEVEL: 'DEBUG',
        APPSTORE_TRUST_PROXY: '10.0.0.0/8, 127.0.0.1',
        APPSTORE_SECRET_KEY_FILE: 'afile',
        APPSTORE_DOWNLOAD_TIMEOUT_SECONDS: '0.5',
        APPSTORE_MAX_ARCHIVE_MIB: '1',
        APPSTORE_MAX_REDIRECTS: '0',
        APPSTORE_UPLOADS_PER_DAY: '5',
        APPSTORE_PUBLISHES_PER_USER: '2',
        APPSTORE_PUBLISHES_AT_ONCE: '8',
        APPSTORE_HEADERS_TIMEOUT_SECONDS: '2.5',
        APPSTORE_REQUEST_TIMEOUT_SECONDS: '30',
        APPSTORE_IDLE_TIMEOUT_SECONDS: '75',
        APPSTORE_MAX_CONNECTIONS_PER_ADDRESS: '0',
        APPSTORE_LISTING_BROTLI_MIN_SAVING: '2.5',
      },
      cwd,
    );
    assert.equal(config.dataDir, path.join(cwd, 'store'));
    assert.deepEqual(config.database, { kind: 'postgres', url: 'postgresql://u:p@db:5432/appstore' });
    assert.equal(config.host, '0.0.0.0');
    assert.equal(config.port, 9000);
    assert.equal(config.caCertFile, path.join(cwd, 'ca.pem'));
    assert.equal(config.crlFile, path.join(cwd, 'ca.pem'));
    assert.equal(config.downloadAllowPrivate, true);
    assert.equal(config.logLevel, 'debug');
    assert.deepEqual(config.trustProxy, ['10.0.0.0/8', '127.0.0.1']);
    assert.equal(config.secretKeyFile, path.join(cwd, 'afile'));
    assert.equal(config.secretKeyFileConfigured, true);
    assert.deepEqual(config.limits, {
      downloadTimeoutMs: 500,
      maxArchiveBytes: 1024 * 1024,
      maxRedirects: 0,
      uploadsPerDay: 5,
      publishesPerUser: 2,
      publishesAtOnce: 8,
    });
    assert.deepEqual(config.connections, {
      headersTimeoutMs: 2500,
      requestTimeoutMs: 30_000,
      idleTimeoutMs: 75_000,
      maxPerAddress: 0,
    });
    assert.equal(config.listingBrotliMinSaving, 0.025);
  });

  test('empty values count as unset', () => {
    const config = loadConfig({ APPSTORE_PORT: '', APPSTORE_DATABASE_URL: '  ' }, cwd);
    assert.equal(config.port, 8000);
    assert.equal(config.database.kind, 'sqlite');
  });

  const cases: Array<[string, Record<string, string>, RegExp]> = [
    ['port not a number', { APPSTORE_PORT: 'eighty' }, /^APPSTORE_PORT: 'eighty' is not a port number/],
    ['port too large', { APPSTORE_PORT: '65536' }, /^APPSTORE_PORT: '65536'/],
    ['port negative', { APPSTORE_PORT: '-1' }, /^APPSTORE_PORT/],
    ['database URL not a URL', { APPSTORE_DATABASE_URL: 'not a url' }, /^APPSTORE_DATABASE_URL: not a URL/],
    [
      'database URL of another kind',
      { APPSTORE_DATABASE_URL: 'mysql://h/db' },
      /^APPSTORE_DATABASE_URL: scheme 'mysql' is not supported/,
    ],
    ['database URL without a database', { APPSTORE_DATABASE_URL: 'postgres://h:5432/' }, /names no database/],
    ['CA file missing', { APPSTORE_CA_CERT: 'missing.pem' }, /^APPSTORE_CA_CERT: .*missing\.pem does not exist$/],
    ['CA path a directory', { APPSTORE_CA_CERT: 'adir' }, /^APPSTORE_CA_CERT: .*adir is not a regular file$/],
    ['CRL file missing', { APPSTORE_CRL: 'nope.crl' }, /^APPSTORE_CRL: .*nope\.crl does not exist$/],
    [
      'switch not a switch',
      { APPSTORE_DOWNLOAD_ALLOW_PRIVATE: 'maybe' },
      /^APPSTORE_DOWNLOAD_ALLOW_PRIVATE: 'maybe' is not a switch/,
    ],
    ['unknown log level', { APPSTORE_LOG_LEVEL: 'loud' }, /^APPSTORE_LOG_LEVEL: 'loud' is not one of fatal, error/],
    [
      'bad proxy address',
      { APPSTORE_TRUST_PROXY: '10.0.0.0/33,proxy' },
      /^APPSTORE_TRUST_PROXY: '10\.0\.0\.0\/33', 'proxy' are not an IP address/,
    ],
    [
      'secret key file missing',
      { APPSTORE_SECRET_KEY_FILE: 'keys/none.key' },
      /^APPSTORE_SECRET_KEY_FILE: .*none\.key does not exist$/,
    ],
    [
      'download timeout not a number',
      { APPSTORE_DOWNLOAD_TIMEOUT_SECONDS: 'soon' },
      /^APPSTORE_DOWNLOAD_TIMEOUT_SECONDS: 'soon' is not a number/,
    ],
    [
      'archive limit zero',
      { APPSTORE_MAX_ARCHIVE_MIB: '0' },
      /^APPSTORE_MAX_ARCHIVE_MIB: '0' is not a number from above 0 to 1024$/,
    ],
    [
      'uploads per day fractional',
      { APPSTORE_UPLOADS_PER_DAY: '1.5' },
      /^APPSTORE_UPLOADS_PER_DAY: '1\.5' is not a whole number/,
    ],
    [
      'headers timeout longer than the request timeout',
      { APPSTORE_HEADERS_TIMEOUT_SECONDS: '90' },
      /^APPSTORE_HEADERS_TIMEOUT_SECONDS: must not be longer than APPSTORE_REQUEST_TIMEOUT_SECONDS/,
    ],
    [
      'connection limit negative',
      { APPSTORE_MAX_CONNECTIONS_PER_ADDRESS: '-1' },
      /^APPSTORE_MAX_CONNECTIONS_PER_ADDRESS: '-1' is not a whole number from 0/,
    ],
    [
      'brotli saving over 100 %',
      { APPSTORE_LISTING_BROTLI_MIN_SAVING: '120' },
      /^APPSTORE_LISTING_BROTLI_MIN_SAVING: '120' is not a number from 0 to 100$/,
    ],
    [
      'data dir is a file',
      { APPSTORE_DATA_DIR: 'afile' },
      /^APPSTORE_DATA_DIR: .*afile exists and is not a directory$/,
    ],
  ];
  for (const [name, env, expected] of cases) {
    test(`refuses: ${name}`, () => {
      const problems = problemsOf(env);
      assert.equal(problems.length, 1, problems.join('\n'));
      assert.match(problems[0] ?? '', expected);
    });
  }

  test('lists every problem at once', () => {
    const problems = problemsOf({
      APPSTORE_PORT: 'x',
      APPSTORE_LOG_LEVEL: 'y',
      APPSTORE_CA_CERT: 'none.pem',
      APPSTORE_DOWNLOAD_ALLOW_PRIVATE: '2',
    });
    assert.equal(problems.length, 4);
    const error = new ConfigError(problems);
    for (const problem of problems) assert.ok(error.message.includes(problem));
  });

  test('unknown APPSTORE_ variables are reported, test variables are not', () => {
    assert.deepEqual(
      unknownVariables({ APPSTORE_PROT: '1', APPSTORE_PORT: '1', APPSTORE_TEST_DATABASE_URL: 'x', HOME: '/' }),
      ['APPSTORE_PROT'],
    );
  });
});
