import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { getOrCreateToken } from '../../src/domain/accounts/api-tokens.ts';
import { userActing } from '../../src/domain/audit/audit.ts';
import { lockTransfer, unlockTransfer } from '../../src/domain/apps/manage-apps.ts';
import { requestCertificate } from '../../src/domain/identity/request-certificate.ts';
import { ensureOwnAuthority } from '../../src/domain/identity/store-identity.ts';
import type { User } from '../../src/domain/accounts/user.ts';
import { TEST_ACTING } from '../helpers/acting.ts';
import { createUser } from '../helpers/accounts.ts';
import { certFile } from '../helpers/certificate-fixtures.ts';
import { startMailServer } from '../helpers/mail-server.ts';
import type { MailServer } from '../helpers/mail-server.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';
import { WebClient } from '../helpers/web-client.ts';

/**
 * Certificates from the store's own authority (issue 49): app ids with digits on every page and
 * route, and certificates got while an app was unlocked for transfer, revoked when it ends.
 */
describe(`certificates from the store's own authority (${DIALECT})`, () => {
  let server: TestServer;
  let mail: MailServer;
  let keys = '';
  const users = new Map<string, User>();
  const passwords: Record<string, string> = {
    alice: 'alpha bravo charlie delta',
    carol: 'india juliet kilo lima',
    dave: 'mike november oscar papa',
  };

  /** A key and a request for `appId` made as the page tells a developer to (RSA 2048 keeps the test quick). */
  const csrFor = (appId: string, name: string): string => {
    execFileSync(
      'openssl',
      [
        'req',
        '-new',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        `${name}.key`,
        '-out',
        `${name}.csr`,
        '-subj',
        `/CN=${appId}`,
      ],
      { cwd: keys, stdio: 'ignore' },
    );
    return fs.readFileSync(path.join(keys, `${name}.csr`), 'utf8');
  };
  const sign = (appId: string, name: string): string =>
    execFileSync('sh', ['-c', `printf '%s' ${appId} | openssl dgst -sha512 -sign ${name}.key | openssl base64 -A`], {
      cwd: keys,
      encoding: 'utf8',
    });
  const issue = async (who: string, appId: string, name: string): Promise<string> => {
    const user = users.get(who) as User;
    const outcome = await requestCertificate(
      csrFor(appId, name),
      user,
      userActing(user, null, null),
      server.container.certificateRequests,
    );
    assert.equal(outcome.status, 'issued');
    return outcome.status === 'issued' ? outcome.certificate : '';
  };
  const register = async (who: string, certificate: string, signature: string) => {
    const token = await getOrCreateToken(users.get(who) as User, TEST_ACTING, server.container.accounts);
    return server.app.inject({
      method: 'POST',
      url: '/api/v1/apps',
      headers: { authorization: `Token ${token}` },
      payload: { certificate, signature },
    });
  };
  const signIn = async (name: string): Promise<WebClient> => {
    const client = new WebClient(server.app);
    await client.get('/account/login');
    assert.equal(
      (await client.post('/account/login', { username: name, password: passwords[name] ?? '', next: '/developer' }))
        .statusCode,
      303,
    );
    return client;
  };

  before(async () => {
    mail = await startMailServer();
    server = await createTestServer({ env: { APPSTORE_SMTP_URL: mail.url } });
    keys = fs.mkdtempSync(path.join(server.database.dataDir, 'keys-'));
    // The test intermediate stands in for the store's authority, imported as an earlier version's
    // files (a new 4,096-bit one takes seconds to make).
    fs.mkdirSync(path.join(server.database.dataDir, 'ca'));
    fs.copyFileSync(certFile('intermediate.crt'), path.join(server.database.dataDir, 'ca', 'authority.crt'));
    fs.copyFileSync(certFile('intermediate.key'), path.join(server.database.dataDir, 'ca', 'authority.key'));
    await server.container.checkSecretKey();
    assert.equal(
      await ensureOwnAuthority(
        server.container.identity,
        server.container.accounts.keys,
        server.container.legacyAuthority,
        new Date(),
        TEST_ACTING,
      ),
      'imported',
    );
    for (const name of ['alice', 'carol', 'dave'])
      users.set(
        name,
        await createUser(server.container, name, passwords[name] ?? null, { email: `${name}@example.org` }),
      );
  });
  after(async () => {
    await server.close();
    await mail.close();
  });

  test('an app id with digits: the commands, the request, the .crt download and the register page take it', async () => {
    const alice = await signIn('alice');
    assert.match((await alice.get('/developer/certificates?app=app2go')).body, /CN=app2go/);
    const page = await alice.post('/developer/certificates', { csr: csrFor('app2go', 'app2go') });
    assert.equal(page.statusCode, 200, page.body);
    const link = /href="(\/developer\/certificates\/\d+\/app2go\.crt)"/.exec(page.body)?.[1];
    assert.ok(link !== undefined, 'the page links the certificate');
    const download = await alice.get(link);
    assert.equal(download.statusCode, 200, download.body);
    assert.match(download.body, /^-----BEGIN CERTIFICATE-----/);
    assert.match(
      (await alice.get('/developer/register?app=app2go')).body,
      /printf &#39;%s&#39; app2go|printf '%s' app2go/,
    );
    assert.equal((await register('alice', download.body, sign('app2go', 'app2go'))).statusCode, 201);
  });

  test('locking again revokes what others got meanwhile: audited, the holder mailed, the certificate refused', async () => {
    const alice = users.get('alice') as User;
    const asAlice = userActing(alice, null, null);
    await unlockTransfer('app2go', asAlice, server.container.appManagement);
    const carols = await issue('carol', 'app2go', 'carol');
    await lockTransfer('app2go', asAlice, server.container.appManagement);
    const audit = await server.container.audit.find({ appId: 'app2go', event: 'certificate.revoked', limit: 5 });
    assert.equal(audit.length, 1);
    assert.equal(audit[0]?.subjectUser, 'carol');
    assert.equal(audit[0]?.details['reason'], 'transfer unlock ended');
    const told = await mail.nextMailTo('carol@example.org');
    assert.match(told.subject, /Your certificate for app2go was revoked/);
    // Unlocked again, her old certificate no longer takes the app.
    await unlockTransfer('app2go', asAlice, server.container.appManagement);
    const refused = await register('carol', carols, sign('app2go', 'carol'));
    assert.equal(refused.statusCode, 400, refused.body);
    assert.equal(refused.json().code, 'certificate_revoked');
    // Alice's own certificate, issued before, was not touched.
    const alicesAudit = await server.container.audit.find({ appId: 'app2go', event: 'certificate.revoked', limit: 5 });
    assert.equal(alicesAudit.length, 1);
  });

  test('a transfer ends the unlock too: the new owner keeps theirs, others lose what they got meanwhile', async () => {
    // Still unlocked from the test before.
    const daves = await issue('dave', 'app2go', 'dave');
    const carols = await issue('carol', 'app2go', 'carol2');
    assert.equal((await register('carol', carols, sign('app2go', 'carol2'))).statusCode, 204);
    const revoked = await server.container.audit.find({ appId: 'app2go', event: 'certificate.revoked', limit: 5 });
    assert.deepEqual(
      revoked.map((entry) => entry.subjectUser),
      ['carol', 'dave'],
    );
    const refused = await register('dave', daves, sign('app2go', 'dave'));
    assert.equal(refused.json().code, 'certificate_revoked');
    // The new owner's certificate still registers (the same certificate again: 204).
    assert.equal((await register('carol', carols, sign('app2go', 'carol2'))).statusCode, 204);
  });
});
