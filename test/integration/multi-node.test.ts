import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { issueCertificate } from '../../src/domain/certificates/certificate-authority.ts';
import { revokeCertificate } from '../../src/domain/certificates/revoke-certificate.ts';
import { ensureOwnAuthority, loadOwnAuthority } from '../../src/domain/identity/store-identity.ts';
import { placeFixtureAuthority } from '../helpers/fixture-authority.ts';
import { startServeProcess } from '../helpers/serve-process.ts';
import { basic, createUser } from '../helpers/accounts.ts';
import { TEST_ACTING } from '../helpers/acting.ts';
import { certFile, readCert } from '../helpers/certificate-fixtures.ts';
import { runCommand } from '../helpers/run-cli.ts';
import { DIALECT, createTestDatabase } from '../helpers/test-database.ts';
import type { TestDatabase } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';

const PASSWORD = 'a long password for two nodes';

describe(`two nodes on one database share one identity (${DIALECT})`, () => {
  let database: TestDatabase;
  let one: TestServer;
  let two: TestServer;
  before(async () => {
    database = await createTestDatabase();
    one = await createTestServer({ database });
    two = await createTestServer({ database });
    await one.container.checkSecretKey();
    await two.container.checkSecretKey();
  });
  after(async () => {
    await two.app.close();
    await one.close();
  });

  test('a token obtained on one node works on the other, and POST /api/v1/token there returns it unchanged', async () => {
    await createUser(one.container, 'ada', PASSWORD);
    const obtained = await one.app.inject({
      method: 'POST',
      url: '/api/v1/token',
      headers: { authorization: basic('ada', PASSWORD) },
    });
    assert.equal(obtained.statusCode, 200);
    const token = obtained.json().token as string;
    const again = await two.app.inject({
      method: 'POST',
      url: '/api/v1/token',
      headers: { authorization: basic('ada', PASSWORD) },
    });
    assert.equal(again.statusCode, 200);
    assert.equal(again.json().token, token, 'the second node decrypts the stored token: it does not replace it');
    const used = await two.app.inject({
      method: 'DELETE',
      url: '/api/v1/apps/nosuchapp',
      headers: { authorization: `Token ${token}` },
    });
    assert.equal(used.statusCode, 404, 'the token authenticates on the second node (the app is what is missing)');
    assert.equal(used.json().code, 'app_not_found');
  });

  test('a certificate issued through one node registers through the other', async () => {
    assert.equal(
      await ensureOwnAuthority(
        one.container.identity,
        one.container.accounts.keys,
        one.container.legacyAuthority,
        new Date(),
        TEST_ACTING,
      ),
      'created',
    );
    assert.equal(
      await ensureOwnAuthority(
        two.container.identity,
        two.container.accounts.keys,
        two.container.legacyAuthority,
        new Date(),
        TEST_ACTING,
      ),
      'existing',
    );
    const certificate = await issueCertificate(
      readCert('notes.csr'),
      await loadOwnAuthority(one.container.identity, one.container.accounts.keys),
      new Date(),
    );
    const user = await createUser(two.container, 'bea', PASSWORD);
    const token = (
      await two.app.inject({
        method: 'POST',
        url: '/api/v1/token',
        headers: { authorization: basic(user.username, PASSWORD) },
      })
    ).json().token as string;
    const register = (server: TestServer) =>
      server.app.inject({
        method: 'POST',
        url: '/api/v1/apps',
        headers: { authorization: `Token ${token}` },
        payload: { certificate, signature: readCert('notes.sig') },
      });
    const registered = await register(two);
    assert.equal(registered.statusCode, 201, registered.body);

    // Revoked through the first node: the second refuses it at once, without a restart.
    await revokeCertificate(
      certificate,
      await one.container.trust(),
      one.container.revocations,
      new Date(),
      TEST_ACTING,
    );
    const refused = await register(two);
    assert.equal(refused.statusCode, 400);
    assert.equal(refused.json().code, 'certificate_revoked');
  });

  test('a node started with another secret key refuses to start, and says what to do', async () => {
    const otherKey = path.join(database.dataDir, 'other.key');
    fs.writeFileSync(otherKey, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
    // As an operator starts a node: bin/appstore.js serve, the bundle.
    await assert.rejects(startServeProcess({ ...database.env, APPSTORE_SECRET_KEY_FILE: otherKey }), (error: Error) => {
      assert.match(error.message, /The secret key in .*other\.key is not the one this database was set up with/);
      assert.match(error.message, /copy the key file of a running node here and point APPSTORE_SECRET_KEY_FILE at it/);
      return true;
    });
    const command = await runCommand(['user', 'list'], { ...database.env, APPSTORE_SECRET_KEY_FILE: otherKey });
    assert.equal(command.code, 1);
    assert.match(command.stderr, /is not the one this database was set up with/);
  });
});

const METRICS_TOKEN = 'metrics-token-of-the-test';

describe(`a changed CRL file applies on every node without a restart (${DIALECT})`, () => {
  let database: TestDatabase;
  let crl: string;
  const servers: TestServer[] = [];
  const refusals: unknown[] = [];
  before(async () => {
    database = await createTestDatabase();
    crl = path.join(database.dataDir, 'revocations.crl');
    fs.copyFileSync(certFile('empty.crl'), crl);
    const env = { APPSTORE_CA_CERT: certFile('chain.pem'), APPSTORE_CRL: crl, APPSTORE_METRICS_TOKEN: METRICS_TOKEN };
    for (let i = 0; i < 2; i++) {
      const server = await createTestServer({ database, env });
      server.container.trustSource.reports.refused = (error) => refusals.push(error);
      servers.push(server);
    }
    const user = await createUser(servers[0]!.container, 'cy', PASSWORD);
    token = (
      await servers[0]!.app.inject({
        method: 'POST',
        url: '/api/v1/token',
        headers: { authorization: basic(user.username, PASSWORD) },
      })
    ).json().token as string;
  });
  after(async () => {
    await servers[1]?.app.close();
    await servers[0]?.close();
  });
  let token = '';
  // The app id is never registered: a refusal comes from the trust, a 201 would register it.
  const check = (server: TestServer) =>
    server.app.inject({
      method: 'POST',
      url: '/api/v1/apps',
      headers: { authorization: `Token ${token}` },
      payload: { certificate: readCert('mail-revoked.crt'), signature: 'x' },
    });

  test('before: not revoked (refused only for its signature); after the file changes: revoked on both', async () => {
    for (const server of servers) assert.equal((await check(server)).json().code, 'invalid_signature');
    fs.copyFileSync(certFile('revoking.crl'), crl);
    for (const server of servers) assert.equal((await check(server)).json().code, 'certificate_revoked');
  });

  test('a damaged new file is refused and reported; the last good one stays in force', async () => {
    fs.writeFileSync(crl, '-----BEGIN X509 CRL-----\nnot a crl\n-----END X509 CRL-----\n');
    for (const server of servers) assert.equal((await check(server)).json().code, 'certificate_revoked');
    assert.equal(refusals.length, 2, 'each node reports it, once');
    assert.match(String(refusals[0]), /CRL #1 of the revocation list file \(APPSTORE_CRL\) cannot be read/);
    for (const server of servers) await check(server);
    assert.equal(refusals.length, 2, 'not again for the same file');
  });

  test('a CRL cut short, signed by another authority or older than the one in force is refused too: the revoked certificate stays revoked', async () => {
    const revoking = fs.readFileSync(certFile('revoking.crl'), 'utf8');
    const bad = [
      revoking.slice(0, 300),
      '',
      fs.readFileSync(certFile('other-authority.crl'), 'utf8'),
      fs.readFileSync(certFile('empty.crl'), 'utf8'),
    ];
    for (const [index, text] of bad.entries()) {
      // Written under another name and renamed over the file, as the guide says.
      fs.writeFileSync(`${crl}.new`, text);
      fs.renameSync(`${crl}.new`, crl);
      for (const server of servers)
        assert.equal((await check(server)).json().code, 'certificate_revoked', `bad file #${index + 1}`);
      for (const server of servers)
        assert.equal(server.container.trustSource.refusals, 2 + index, `bad file #${index + 1} counted once per node`);
    }
    const metrics = await servers[0]!.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    assert.match(metrics.body, /^appstore_trust_refusals_total 5$/m);
  });
});

describe(`appstore secret-key rotate (${DIALECT})`, () => {
  test('tokens keep working under the new key, the authority opens with it, the old key is refused', async () => {
    const database = await createTestDatabase();
    const old = await createTestServer({ database });
    try {
      await old.container.checkSecretKey();
      placeFixtureAuthority(database.dataDir);
      await ensureOwnAuthority(
        old.container.identity,
        old.container.accounts.keys,
        old.container.legacyAuthority,
        new Date(),
        TEST_ACTING,
      );
      const before = await loadOwnAuthority(old.container.identity, old.container.accounts.keys);
      await createUser(old.container, 'dee', PASSWORD);
      const token = (
        await old.app.inject({
          method: 'POST',
          url: '/api/v1/token',
          headers: { authorization: basic('dee', PASSWORD) },
        })
      ).json().token as string;
      const newKey = path.join(database.dataDir, 'new.key');
      fs.writeFileSync(newKey, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });

      const same = await runCommand(['secret-key', 'rotate', path.join(database.dataDir, 'secret.key')], database.env);
      assert.equal(same.code, 1);
      assert.match(same.stderr, /The new key is the key in use/);
      const rotated = await runCommand(['secret-key', 'rotate', newKey], database.env);
      assert.equal(rotated.code, 0, rotated.stderr);
      assert.match(rotated.stdout, /1 API tokens kept, 0 sessions and 0 mailed links ended/);

      // The old node still runs: at once, it refuses what needs the key, says why, and keeps serving the listings.
      const refused = [
        await old.app.inject({
          method: 'DELETE',
          url: '/api/v1/apps/nosuchapp',
          headers: { authorization: `Token ${token}` },
        }),
        await old.app.inject({
          method: 'POST',
          url: '/api/v1/token',
          headers: { authorization: basic('dee', PASSWORD) },
        }),
        await old.app.inject({
          method: 'POST',
          url: '/api/v1/token/new',
          headers: { authorization: basic('dee', PASSWORD) },
        }),
        await old.app.inject({ method: 'GET', url: '/healthz/writes' }),
      ];
      for (const answer of refused) {
        assert.equal(answer.statusCode, 503, answer.body);
        assert.equal(answer.json().code, 'restart_needed');
        assert.match(answer.json().detail, /secret key that `appstore secret-key rotate` replaced/);
        assert.equal(answer.headers['retry-after'], '30');
      }
      assert.equal(
        (await old.app.inject({ method: 'GET', url: '/healthz' })).statusCode,
        200,
        'it can still serve the listings',
      );
      assert.equal((await old.app.inject({ method: 'GET', url: '/api/v1/apps.json' })).statusCode, 200);

      const renewed = await createTestServer({ database, env: { APPSTORE_SECRET_KEY_FILE: newKey } });
      try {
        await renewed.container.checkSecretKey();
        const again = await renewed.app.inject({
          method: 'POST',
          url: '/api/v1/token',
          headers: { authorization: basic('dee', PASSWORD) },
        });
        assert.equal(again.json().token, token, 'the same token, readable under the new key');
        const used = await renewed.app.inject({
          method: 'DELETE',
          url: '/api/v1/apps/nosuchapp',
          headers: { authorization: `Token ${token}` },
        });
        assert.equal(used.statusCode, 404, 'and it authenticates');
        assert.deepEqual(await loadOwnAuthority(renewed.container.identity, renewed.container.accounts.keys), before);
      } finally {
        await renewed.app.close();
      }
      await assert.rejects(old.container.checkSecretKey(), /is not the one this database was set up with/);
    } finally {
      await old.close();
    }
  });
});
