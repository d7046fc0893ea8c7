import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { getOrCreateToken } from '../../src/domain/accounts/api-tokens.ts';
import { userActing } from '../../src/domain/audit/audit.ts';
import { retireRelease } from '../../src/domain/apps/app-status.ts';
import { addCoMaintainer } from '../../src/domain/apps/manage-apps.ts';
import { importPlatformReleases } from '../../src/domain/catalog/import-catalog.ts';
import { lookForNotifications } from '../../src/domain/notifications/notification-look.ts';
import { createUser } from '../helpers/accounts.ts';
import { TEST_ACTING } from '../helpers/acting.ts';
import { appArchive, signWith } from '../helpers/app-archive.ts';
import { certFile, readCert } from '../helpers/certificate-fixtures.ts';
import { TEST_TLS_CA, startArchiveServer } from '../helpers/https-archive-server.ts';
import type { ArchiveServer } from '../helpers/https-archive-server.ts';
import { startMailServer } from '../helpers/mail-server.ts';
import type { MailServer } from '../helpers/mail-server.ts';
import { importTestCategories } from '../helpers/store-actions.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';
import { WebClient } from '../helpers/web-client.ts';

/**
 * Notifications by mail to an app's maintainers (issue 52): a failed publish, a release retired
 * by an administrator, a certificate about to expire, a new Nextcloud major with no compatible
 * release; each kind can be turned off on the account page; the looks send each once.
 */
describe(`notifications by mail (${DIALECT})`, () => {
  let server: TestServer;
  let mail: MailServer;
  let files: ArchiveServer;
  let token: string;

  before(async () => {
    mail = await startMailServer();
    files = await startArchiveServer();
    server = await createTestServer({
      env: {
        APPSTORE_CA_CERT: certFile('chain.pem'),
        APPSTORE_DOWNLOAD_ALLOW_PRIVATE: '1',
        APPSTORE_SMTP_URL: mail.url,
      },
      downloadCa: [TEST_TLS_CA],
    });
    await importTestCategories(server.container);
    const alice = await createUser(server.container, 'alice', 'alice password here', { email: 'alice@example.org' });
    await createUser(server.container, 'carl', null, { email: 'carl@example.org' });
    token = await getOrCreateToken(alice, TEST_ACTING, server.container.accounts);
    const registered = await server.app.inject({
      method: 'POST',
      url: '/api/v1/apps',
      headers: { authorization: `Token ${token}` },
      payload: { certificate: readCert('news.crt'), signature: readCert('news.sig') },
    });
    assert.equal(registered.statusCode, 201, registered.body);
    await addCoMaintainer('news', 'carl', TEST_ACTING, server.container.appManagement);
    const bytes = await appArchive({ version: '1.0.0' });
    files.serve('/news.tar.gz', bytes);
    const published = await server.app.inject({
      method: 'POST',
      url: '/api/v1/apps/releases',
      headers: { authorization: `Token ${token}` },
      payload: { download: `${files.origin}/news.tar.gz`, signature: signWith('news', bytes) },
    });
    assert.equal(published.statusCode, 201, published.body);
  });
  after(async () => {
    await server.close();
    await files.close();
    await mail.close();
  });

  const refusedPublish = () =>
    server.app.inject({
      method: 'POST',
      url: '/api/v1/apps/releases',
      headers: { authorization: `Token ${token}` },
      payload: { download: `${files.origin}/missing.tar.gz`, signature: 'c2lnbmF0dXJl' },
    });

  test('a publish from the API that fails: the publisher is mailed why, after the answer', async () => {
    assert.equal((await refusedPublish()).statusCode, 400);
    const received = await mail.nextMailTo('alice@example.org');
    assert.equal(received.subject, 'A publish of yours was refused');
    assert.match(received.text, /through the API, from https:\/\/localhost:\d+\/missing\.tar\.gz/);
    assert.match(received.text, /404/);
    assert.match(
      received.text,
      /turn this kind of mail off on your account page: http:\/\/127\.0\.0\.1:8000\/account#notifications/,
    );
  });

  test('turned off on the account page: no mail of that kind', async () => {
    const web = new WebClient(server.app);
    await web.get('/account/login');
    await web.post('/account/login', { username: 'alice', password: 'alice password here', next: '/account' });
    const page = await web.get('/account');
    assert.match(page.body, /Mails about your apps/);
    assert.match(page.body, /name="on-publish-failed" type="checkbox" value="on" checked/);
    // Every kind but publish-failed kept on.
    const saved = await web.post('/account/notifications', {
      sent: '1',
      'on-release-retired': 'on',
      'on-certificate-expiring': 'on',
      'on-platform-major': 'on',
    });
    assert.equal(saved.statusCode, 200, saved.body.slice(0, 300));
    assert.match(saved.body, /Your mail settings are saved\./);
    assert.doesNotMatch(saved.body, /name="on-publish-failed" type="checkbox" value="on" checked/);
    const before = mail.received.length;
    assert.equal((await refusedPublish()).statusCode, 400);
    await server.container.mailQueue.settled();
    assert.equal(mail.received.length, before, 'nothing sent');
  });

  test('a release retired by an administrator: the owner and co-maintainers are told; by the owner: not', async () => {
    await retireRelease(
      { appId: 'news', version: '1.0.0', nightly: false },
      { reason: 'security', note: 'CVE-2026-1' },
      TEST_ACTING,
      server.container.appStatus,
    );
    for (const to of ['alice@example.org', 'carl@example.org']) {
      const received = await mail.nextMailTo(to);
      assert.equal(received.subject, 'news 1.0.0 was retired by an administrator');
      assert.match(received.text, /\(a security problem: CVE-2026-1\)/);
    }
    await retireRelease(
      { appId: 'news', version: '1.0.0', nightly: false },
      null,
      TEST_ACTING,
      server.container.appStatus,
    );
    const alice = await server.container.accounts.store.findUserByUsername('alice');
    assert.ok(alice !== null);
    const before = mail.received.length;
    await retireRelease(
      { appId: 'news', version: '1.0.0', nightly: false },
      { reason: 'broken', note: '' },
      userActing(alice, null, null),
      server.container.appStatus,
    );
    await server.container.mailQueue.settled();
    assert.equal(mail.received.length, before, 'the owner retired it: nobody is told what they did');
    await retireRelease(
      { appId: 'news', version: '1.0.0', nightly: false },
      null,
      TEST_ACTING,
      server.container.appStatus,
    );
  });

  test('the look: a certificate within 30 days of expiry, a new Nextcloud major; each sent once', async () => {
    // news.crt expires on 2045-01-01: ten days before.
    const look = { ...server.container.notificationLook, now: () => new Date('2044-12-22T00:00:00Z') };
    await importPlatformReleases(
      [
        { version: '32.0.1', hasRelease: true, isSupported: true },
        { version: '33.0.0', hasRelease: true, isSupported: true },
      ],
      TEST_ACTING,
      server.container.catalog,
    );
    // The majors were listed "now" (the real clock); the look's clock is far later: no new major then.
    assert.deepEqual(await lookForNotifications(look), { expiring: 1, majors: 0, tokens: 0 });
    for (const to of ['carl@example.org', 'alice@example.org']) {
      const expiring = await mail.nextMailTo(to);
      assert.equal(expiring.subject, 'The certificate of news expires on 2045-01-01');
    }
    assert.deepEqual(await lookForNotifications(look), { expiring: 0, majors: 0, tokens: 0 }, 'once');

    const today = await lookForNotifications(server.container.notificationLook);
    assert.equal(today.majors, 1, 'news 1.0.0 supports 30 to 32, not 33');
    const major = await mail.nextMailTo('alice@example.org');
    assert.equal(major.subject, 'news has no release for Nextcloud 33');
    assert.match(major.text, /max-version="33"/);
    assert.equal((await lookForNotifications(server.container.notificationLook)).majors, 0, 'once');
  });
});
