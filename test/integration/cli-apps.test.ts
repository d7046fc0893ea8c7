import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { getOrCreateToken } from '../../src/domain/accounts/api-tokens.ts';
import { normaliseSerial } from '../../src/domain/certificates/x509.ts';
import { revokeBySerial } from '../../src/domain/identity/revoke-by-serial.ts';
import { toBool } from '../../src/storage/schema.ts';
import { createUser } from '../helpers/accounts.ts';
import { certFile, readCert, weakKeyFile } from '../helpers/certificate-fixtures.ts';
import { FIXTURE_AUTHORITY } from '../helpers/fixture-authority.ts';
import { runCommand } from '../helpers/run-cli.ts';
import { startServeProcess } from '../helpers/serve-process.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import { contentVersion } from '../helpers/listing-bytes.ts';
import type { TestServer } from '../helpers/test-server.ts';
import { TEST_ACTING } from '../helpers/acting.ts';

describe(`the store's own authority: ca init, issue, revoke, and registering with it (${DIALECT})`, () => {
  let server: TestServer;
  let env: Record<string, string>;
  before(async () => {
    server = await createTestServer();
    env = server.database.env;
  });
  after(() => server.close());

  test('serve creates the authority on first start when APPSTORE_CA_CERT is unset: in the database, its key sealed', async () => {
    const serve = await startServeProcess(env, undefined, { authority: 'generate' });
    const code = await serve.stop();
    assert.equal(code, 0, serve.output());
    assert.match(serve.output(), /created the store's certificate authority/);
    assert.equal(fs.existsSync(path.join(server.database.dataDir, 'ca')), false, 'no key file in the data directory');
    const row = await server.container.database.db.selectFrom('store_identity').selectAll().executeTakeFirstOrThrow();
    assert.match(row.authority_certificate ?? '', /^-----BEGIN CERTIFICATE-----/);
    // Sealed: the format's prefix, then nonce, tag and ciphertext; neither PEM nor base64 DER (which
    // begins MII) anywhere a field starts. (Not "no MII anywhere": random base64 holds it 2 % of the time.)
    const sealed = row.authority_key ?? '';
    assert.match(sealed, /^v1\./, 'the database holds the key sealed');
    assert.doesNotMatch(sealed, /PRIVATE KEY|(^|[.\s])MII/, 'the database holds the key sealed, not in PEM or DER');
    const init = await runCommand(['ca', 'init'], env);
    assert.equal(init.code, 0);
    assert.match(init.stdout, /^already exists: CN=Appstore Code Signing Authority/);
    const printed = await runCommand(['ca', 'certificate'], env);
    assert.equal(printed.stdout, row.authority_certificate);
    fs.writeFileSync(path.join(server.database.dataDir, 'authority.crt'), printed.stdout);
    // The whole name, commas included, as openssl reads it.
    const subject = execFileSync(
      'openssl',
      ['x509', '-noout', '-subject', '-nameopt', 'RFC2253', '-in', path.join(server.database.dataDir, 'authority.crt')],
      { encoding: 'utf8' },
    );
    assert.match(subject, /^subject=CN=Appstore Code Signing Authority \(.+\\, \d{4}-\d{2}-\d{2}\\, [0-9a-f]{8}\)$/m);
  });

  test('issue: signs a CSR with an app id; refuses a bad CN', async () => {
    const issued = await runCommand(['ca', 'issue', certFile('notes.csr')], env);
    assert.equal(issued.code, 0, issued.stderr);
    assert.match(issued.stdout, /^-----BEGIN CERTIFICATE-----/);
    fs.writeFileSync(path.join(server.database.dataDir, 'notes.crt'), issued.stdout);
    const verified = execFileSync(
      'openssl',
      [
        'verify',
        '-CAfile',
        path.join(server.database.dataDir, 'authority.crt'),
        path.join(server.database.dataDir, 'notes.crt'),
      ],
      { encoding: 'utf8' },
    );
    assert.match(verified, /OK/);
    const bad = await runCommand(['ca', 'issue', certFile('bad-cn.csr')], env);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /CN 'Bad App' is not a valid app id/);
    // Weak keys (issue 49): refused with the reason and the command that makes a good one.
    for (const [name, reason] of [
      ['rsa-768', /RSA key has 768 bits; at least 2048/],
      ['rsa-1024', /RSA key has 1024 bits; at least 2048/],
      ['rsa-e3', /public exponent 3; only 65537/],
      ['rsa-pss', /an RSA-PSS key; app signatures are RSA PKCS #1 v1\.5/],
    ] as const) {
      const weak = await runCommand(['ca', 'issue', weakKeyFile(`${name}.csr`)], env);
      assert.equal(weak.code, 1, name);
      assert.match(weak.stderr, reason);
      assert.match(weak.stderr, /openssl req -new -newkey rsa:4096/);
    }
    const missing = await runCommand(['ca', 'issue', 'nope.csr'], env);
    assert.match(missing.stderr, /nope\.csr: no such file/);
  });

  test('the issued certificate registers its app; once revoked, it is refused at once', async () => {
    const user = await createUser(server.container, 'dev', null);
    const token = await getOrCreateToken(user, TEST_ACTING, server.container.accounts);
    const certificate = fs.readFileSync(path.join(server.database.dataDir, 'notes.crt'), 'utf8');
    const register = () =>
      server.app.inject({
        method: 'POST',
        url: '/api/v1/apps',
        headers: { authorization: `Token ${token}` },
        payload: { certificate, signature: readCert('notes.sig') },
      });
    assert.equal((await register()).statusCode, 201);
    const revoked = await runCommand(['ca', 'revoke', path.join(server.database.dataDir, 'notes.crt')], env);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.match(revoked.stdout, /^revoked certificate [0-9a-f]+ \(notes\)/);
    const refused = await register();
    assert.equal(refused.statusCode, 400);
    assert.equal(refused.json().code, 'certificate_revoked');
    const again = await runCommand(['ca', 'revoke', path.join(server.database.dataDir, 'notes.crt')], env);
    assert.match(again.stdout, /was already revoked on/);
    const foreign = await runCommand(['ca', 'revoke', certFile('news.crt')], env);
    assert.equal(foreign.code, 1);
    assert.match(foreign.stderr, /not signed by this store's authority/);
  });

  test('rotate: a new authority issues; certificates of the retired one still register', async () => {
    const rotated = await runCommand(['ca', 'rotate'], env);
    assert.equal(rotated.code, 0, rotated.stderr);
    assert.match(rotated.stdout, /^retired: CN=.*\nissuing: CN=/);
    const [retired, issuing] = rotated.stdout
      .trim()
      .split('\n')
      .map((line) => line.replace(/^\w+: /, ''));
    assert.notEqual(retired, issuing, 'the two authorities have different names');
    const printed = await runCommand(['ca', 'certificate'], env);
    assert.equal(printed.stdout.match(/BEGIN CERTIFICATE/g)?.length, 2, 'the new authority and the retired one');
    const issued = await runCommand(['ca', 'issue', certFile('notes.csr')], env);
    fs.writeFileSync(
      path.join(server.database.dataDir, 'authorities.pem'),
      printed.stdout.split(/(?<=-----END CERTIFICATE-----\n)/)[0] ?? '',
    );
    fs.writeFileSync(path.join(server.database.dataDir, 'notes-2.crt'), issued.stdout);
    const verified = execFileSync(
      'openssl',
      [
        'verify',
        '-CAfile',
        path.join(server.database.dataDir, 'authorities.pem'),
        path.join(server.database.dataDir, 'notes-2.crt'),
      ],
      { encoding: 'utf8' },
    );
    assert.match(verified, /OK/, 'issued by the new authority');
    const trust = await server.container.trust();
    assert.equal(trust.authorities.length, 2);
  });

  test('what ca issue signs is recorded and audited: an administrator revokes it by serial before any app registers it', async () => {
    const pem = fs.readFileSync(path.join(server.database.dataDir, 'notes-2.crt'), 'utf8');
    const serial = execFileSync(
      'openssl',
      ['x509', '-noout', '-serial', '-in', path.join(server.database.dataDir, 'notes-2.crt')],
      { encoding: 'utf8' },
    )
      .trim()
      .replace(/^serial=/, '');
    const recorded = await server.container.certificateRequests.requests.findIssuedBySerial(
      normaliseSerial(serial.toLowerCase()),
    );
    assert.equal(recorded?.certificate, pem);
    assert.equal(recorded?.userId, null, 'nobody asked for it on a page');
    assert.equal(recorded?.appId, 'notes');
    const audited = await server.container.audit.find({ event: 'certificate.issued', limit: 10 });
    assert.ok(
      audited.some(
        (entry) =>
          entry.actor.kind === 'cli' && entry.appId === 'notes' && entry.details['serial'] === recorded?.serial,
      ),
      'certificate.issued by the command line',
    );
    const revoked = await revokeBySerial(serial, 'issued by mistake', TEST_ACTING, server.container.serialRevocation);
    assert.equal(revoked.serial, recorded?.serial);
  });

  test('an authority an earlier version kept in the data directory is imported on init', async () => {
    const other = await createTestServer();
    try {
      // The files an earlier version kept (scripts/make-authority-fixture.sh made these).
      const material = {
        keyPem: fs.readFileSync(FIXTURE_AUTHORITY.key, 'utf8'),
        certificatePem: fs.readFileSync(FIXTURE_AUTHORITY.certificate, 'utf8'),
      };
      const files = other.container.legacyAuthority;
      fs.mkdirSync(path.dirname(files.key), { recursive: true });
      fs.writeFileSync(files.key, material.keyPem);
      fs.writeFileSync(files.certificate, material.certificatePem);
      const init = await runCommand(['ca', 'init'], other.database.env);
      assert.equal(init.code, 0, init.stderr);
      assert.match(init.stdout, /^imported from the data directory: /);
      assert.equal((await runCommand(['ca', 'certificate'], other.database.env)).stdout, material.certificatePem);
    } finally {
      await other.close();
    }
  });

  test('with APPSTORE_CA_CERT set, the store holds no key to issue with', async () => {
    const result = await runCommand(['ca', 'issue', certFile('notes.csr')], {
      ...env,
      APPSTORE_CA_CERT: certFile('chain.pem'),
    });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /APPSTORE_CA_CERT is set/);
    // Refused before anything is touched: in an empty data directory nothing is created.
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'appstore-ca-'));
    try {
      for (const command of [
        ['ca', 'init'],
        ['ca', 'issue', certFile('notes.csr')],
      ]) {
        const refused = await runCommand(command, {
          APPSTORE_DATA_DIR: empty,
          APPSTORE_CA_CERT: certFile('chain.pem'),
        });
        assert.equal(refused.code, 1, command.join(' '));
        assert.deepEqual(fs.readdirSync(empty), [], `${command.join(' ')} created files`);
      }
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe(`appstore app … (${DIALECT})`, () => {
  let server: TestServer;
  let env: Record<string, string>;
  before(async () => {
    server = await createTestServer({ env: { APPSTORE_CA_CERT: certFile('chain.pem') } });
    env = { ...server.database.env, APPSTORE_CA_CERT: certFile('chain.pem') };
    const alice = await createUser(server.container, 'alice', null);
    await createUser(server.container, 'bob', null);
    const token = await getOrCreateToken(alice, TEST_ACTING, server.container.accounts);
    const response = await server.app.inject({
      method: 'POST',
      url: '/api/v1/apps',
      headers: { authorization: `Token ${token}` },
      payload: { certificate: readCert('news.crt'), signature: readCert('news.sig') },
    });
    assert.equal(response.statusCode, 201);
  });
  after(() => server.close());
  const row = () =>
    server.container.database.db.selectFrom('apps').selectAll().where('id', '=', 'news').executeTakeFirstOrThrow();

  test('maintainer add and remove', async () => {
    assert.equal(
      (await runCommand(['app', 'maintainer', 'add', 'news', 'bob'], env)).stdout.trim(),
      'bob now co-maintains news',
    );
    assert.equal(
      (await runCommand(['app', 'maintainer', 'add', 'news', 'bob'], env)).stdout.trim(),
      'bob already co-maintains news',
    );
    assert.deepEqual((await server.container.appManagement.registry.findApp('news'))?.coMaintainerIds.length, 1);
    const owner = await runCommand(['app', 'maintainer', 'add', 'news', 'alice'], env);
    assert.equal(owner.code, 1);
    assert.match(owner.stderr, /alice owns news already/);
    assert.equal(
      (await runCommand(['app', 'maintainer', 'remove', 'news', 'bob'], env)).stdout.trim(),
      'bob no longer co-maintains news',
    );
    const unknownApp = await runCommand(['app', 'maintainer', 'add', 'nope', 'bob'], env);
    assert.equal(unknownApp.code, 1);
    assert.match(unknownApp.stderr, /There is no app 'nope'/);
    const unknownUser = await runCommand(['app', 'maintainer', 'add', 'news', 'zed'], env);
    assert.match(unknownUser.stderr, /There is no user named 'zed'/);
  });

  test('set flags', async () => {
    const version = await contentVersion(server);
    assert.equal(
      (await runCommand(['app', 'set', 'news', '--featured', '--enterprise'], env)).stdout.trim(),
      'news updated',
    );
    let stored = await row();
    assert.equal(toBool(stored.is_featured), true);
    assert.equal(toBool(stored.is_enterprise_only), true);
    assert.ok((await contentVersion(server)) > version, 'a flag change moves the listings version');
    assert.equal(
      (await runCommand(['app', 'set', 'news', '--featured'], env)).stdout.trim(),
      'news already had these settings',
    );
    await runCommand(['app', 'set', 'news', '--no-featured'], env);
    stored = await row();
    assert.equal(toBool(stored.is_featured), false);
    assert.equal(toBool(stored.is_enterprise_only), true);
    for (const bad of [
      ['app', 'set', 'news'],
      ['app', 'set', 'news', '--shiny'],
      ['app', 'set', 'news', '--featured', '--no-featured'],
    ]) {
      assert.equal((await runCommand(bad, env)).code, 2, bad.join(' '));
    }
  });

  test('transfer unlocks the app', async () => {
    const result = await runCommand(['app', 'transfer', 'news'], env);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(toBool((await row()).transfer_unlocked), true);
  });
});
