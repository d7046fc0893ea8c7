import fs from 'node:fs';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { getOrCreateToken } from '../../src/domain/accounts/api-tokens.ts';
import { addCoMaintainer, unlockTransfer } from '../../src/domain/apps/manage-apps.ts';
import { revokeCertificate } from '../../src/domain/certificates/revoke-certificate.ts';
import { RATE_LIMITS } from '../../src/domain/rate-limit.ts';
import { toBool } from '../../src/storage/schema.ts';
import { formatTimestamp } from '../../src/domain/timestamps.ts';
import { createUser } from '../helpers/accounts.ts';
import { certFile, readCert, weakKeyFile } from '../helpers/certificate-fixtures.ts';
import { TestClock } from '../helpers/clock.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import { contentVersion } from '../helpers/listing-bytes.ts';
import type { TestServer } from '../helpers/test-server.ts';
import { TEST_ACTING } from '../helpers/acting.ts';

describe(`POST /api/v1/apps (${DIALECT})`, () => {
  let server: TestServer;
  const clock = new TestClock('2026-06-01T12:00:00.000Z');
  const tokens: Record<string, string> = {};

  before(async () => {
    server = await createTestServer({
      now: clock.now,
      env: { APPSTORE_CA_CERT: certFile('chain.pem'), APPSTORE_CRL: certFile('revoking.crl') },
    });
    for (const [name, isAdmin] of [
      ['alice', false],
      ['bob', false],
      ['carol', false],
      ['root', true],
    ] as const) {
      const user = await createUser(server.container, name, null, { isAdmin });
      tokens[name] = await getOrCreateToken(user, TEST_ACTING, server.container.accounts);
    }
  });
  after(() => server.close());

  const register = (who: string | null, certificate: string, signature: string) =>
    server.app.inject({
      method: 'POST',
      url: '/api/v1/apps',
      headers: who === null ? {} : { authorization: `Token ${tokens[who]}` },
      payload: { certificate, signature },
    });
  const refused = (response: Awaited<ReturnType<typeof register>>, status: number, code: string, detail?: RegExp) => {
    assert.equal(response.statusCode, status, response.body);
    assert.equal(response.json().code, code);
    if (detail !== undefined) assert.match(response.json().detail, detail);
  };
  const app = (id: string) =>
    server.container.database.db.selectFrom('apps').selectAll().where('id', '=', id).executeTakeFirst();
  async function addReleases(appId: string, count: number): Promise<void> {
    const now = formatTimestamp(new Date());
    for (let i = 0; i < count; i++) {
      await server.container.database.db
        .insertInto('releases')
        .values({
          app_id: appId,
          version: `1.0.${i}`,
          is_nightly: false,
          download: `https://example.org/${appId}-${i}.tar.gz`,
          signature: 's',
          archive_sha256: 'x',
          archive_size: 1,
          created_at: now,
          updated_at: now,
        })
        .execute();
    }
  }
  const releaseCount = async (appId: string) =>
    (await server.container.database.db.selectFrom('releases').select('id').where('app_id', '=', appId).execute())
      .length;

  test('401 without credentials, before anything else', async () => {
    const response = await register(null, readCert('news.crt'), readCert('news.sig'));
    assert.equal(response.statusCode, 401);
    assert.equal(response.headers['www-authenticate'], 'Basic realm="appstore", Token');
  });

  test('400 for a body without its fields', async () => {
    const response = await server.app.inject({
      method: 'POST',
      url: '/api/v1/apps',
      headers: { authorization: `Token ${tokens.alice}` },
      payload: { certificate: '' },
    });
    refused(response, 400, 'invalid_request');
    assert.deepEqual(Object.keys(response.json().errors).sort(), ['certificate', 'signature']);
  });

  test('an oversized certificate field (64 KB of BEGIN lines) is refused by its size, before any parsing', async () => {
    const hostile = '-----BEGIN CERTIFICATE-----\n'.repeat(2400);
    const response = await register('alice', hostile, readCert('news.sig'));
    refused(
      response,
      400,
      'invalid_request',
      /^Invalid request body: certificate: must NOT have more than 16384 characters/,
    );
    // Under the size limit, unfinished blocks are found in one pass and refused as not a certificate.
    refused(
      await register('alice', hostile.slice(0, 16_000), readCert('news.sig')),
      400,
      'invalid_certificate',
      /expected one "-----BEGIN CERTIFICATE-----" block/,
    );
  });

  test('400 for every certificate problem, with its own code', async () => {
    refused(await register('alice', 'not a pem', readCert('news.sig')), 400, 'invalid_certificate');
    refused(
      await register('alice', readCert('news-other-authority.crt'), readCert('news.sig')),
      400,
      'certificate_untrusted',
      /not signed by this store's authority/,
    );
    refused(
      await register('alice', readCert('news-expired.crt'), readCert('news.sig')),
      400,
      'certificate_expired',
      /expired on 2016-01-01/,
    );
    refused(
      await register('alice', readCert('news-not-yet-valid.crt'), readCert('news.sig')),
      400,
      'certificate_not_yet_valid',
    );
    refused(
      await register('alice', readCert('mail-revoked.crt'), readCert('mail-revoked.sig')),
      400,
      'certificate_revoked',
      /revoked on/,
    );
    refused(
      await register('alice', readCert('bad-cn.crt'), readCert('bad-cn.sig')),
      400,
      'invalid_app_id',
      /CN 'My-App' is not a valid app id/,
    );
    refused(
      await register('alice', readCert('slash-cn.crt'), readCert('news.sig')),
      400,
      'invalid_app_id',
      /CN '\/news'/,
    );
  });

  test('400 for a weak key, signed by a trusted authority and with a good signature: under 2,048 bits, exponent 3 (issue 49)', async () => {
    const weak = (name: string) =>
      register(
        'alice',
        fs.readFileSync(weakKeyFile(`${name}.crt`), 'utf8'),
        fs.readFileSync(weakKeyFile(`${name}.sig`), 'utf8'),
      );
    refused(
      await weak('rsa-768'),
      400,
      'invalid_certificate',
      /RSA key has 768 bits; at least 2048 are required .*openssl req -new -newkey rsa:4096/,
    );
    refused(await weak('rsa-1024'), 400, 'invalid_certificate', /RSA key has 1024 bits/);
    refused(await weak('rsa-e3'), 400, 'invalid_certificate', /public exponent 3; only 65537 is accepted/);
    assert.equal(await app('weakapp'), undefined, 'nothing was stored');
  });

  test('400 for a signature that does not match: other key, other id, garbage, not base64', async () => {
    refused(
      await register('alice', readCert('news.crt'), readCert('news-by-notes-key.sig')),
      400,
      'invalid_signature',
      /sign the app id 'news' itself/,
    );
    refused(await register('alice', readCert('news.crt'), readCert('notes-by-news-key.sig')), 400, 'invalid_signature');
    refused(await register('alice', readCert('news.crt'), readCert('garbage.sig')), 400, 'invalid_signature');
    refused(await register('alice', readCert('news.crt'), 'not base64!'), 400, 'invalid_signature', /not base64/);
    assert.equal(await app('news'), undefined, 'nothing was stored');
  });

  test('201 for a new app: the requester owns it (wrapped signature accepted)', async () => {
    const response = await register('alice', readCert('news.crt'), readCert('news-wrapped.sig'));
    assert.equal(response.statusCode, 201, response.body);
    assert.equal(response.body, '');
    const stored = await app('news');
    const alice = await server.container.accounts.store.findUserByUsername('alice');
    assert.equal(stored?.owner_id, alice?.id);
  });

  test('204 for the owner with the same certificate (CR LF and whitespace ignored): releases kept', async () => {
    await addReleases('news', 3);
    const response = await register(
      'alice',
      `\n${readCert('news.crt').replace(/\n/g, '\r\n')}\n\n`,
      readCert('news.sig'),
    );
    assert.equal(response.statusCode, 204, response.body);
    assert.equal(await releaseCount('news'), 3);
  });

  test('403 for anyone else, co-maintainers included; nothing changes', async () => {
    await addCoMaintainer('news', 'carol', TEST_ACTING, server.container.appManagement);
    refused(
      await register('bob', readCert('news-2.crt'), readCert('news-2.sig')),
      403,
      'forbidden',
      /Only the owner of news/,
    );
    refused(await register('carol', readCert('news-2.crt'), readCert('news-2.sig')), 403, 'forbidden');
    assert.equal(await releaseCount('news'), 3);
  });

  test('a new certificate from the owner deletes every release, and the listings version moves', async () => {
    const before = await contentVersion(server);
    const response = await register('alice', readCert('news-2.crt'), readCert('news-2.sig'));
    assert.equal(response.statusCode, 204);
    assert.equal(await releaseCount('news'), 0);
    assert.ok((await contentVersion(server)) > before);
    assert.match(String((await app('news'))?.certificate), /BEGIN CERTIFICATE/);
  });

  test('an admin may update it too; the owner stays', async () => {
    const owner = (await app('news'))?.owner_id;
    assert.equal((await register('root', readCert('news.crt'), readCert('news.sig'))).statusCode, 204);
    assert.equal((await app('news'))?.owner_id, owner);
  });

  test('transfer: while unlocked anyone takes ownership, and the lock closes', async () => {
    await unlockTransfer('news', TEST_ACTING, server.container.appManagement);
    const response = await register('bob', readCert('news.crt'), readCert('news.sig'));
    assert.equal(response.statusCode, 204);
    const stored = await app('news');
    const bob = await server.container.accounts.store.findUserByUsername('bob');
    assert.equal(stored?.owner_id, bob?.id);
    assert.equal(toBool(stored?.transfer_unlocked ?? true), false);
    refused(await register('alice', readCert('news.crt'), readCert('news.sig')), 403, 'forbidden');
  });

  test('a certificate the store revoked is refused at once', async () => {
    await revokeCertificate(
      readCert('notes.crt'),
      await server.container.trust(),
      server.container.revocations,
      clock.now(),
      TEST_ACTING,
    );
    refused(
      await register('alice', readCert('notes.crt'), readCert('notes.sig')),
      400,
      'certificate_revoked',
      /by this store/,
    );
  });

  test('concurrent first registrations of one id: one 201, the other 403, never a 5xx', async () => {
    // Without the revoking CRL, mail-revoked.crt is a valid, not yet registered certificate.
    const noCrl = await createTestServer({
      now: clock.now,
      env: { APPSTORE_CA_CERT: certFile('chain.pem') },
      database: server.database,
    });
    const race = await Promise.all(
      ['alice', 'carol'].map((who) =>
        noCrl.app.inject({
          method: 'POST',
          url: '/api/v1/apps',
          headers: { authorization: `Token ${tokens[who]}` },
          payload: { certificate: readCert('mail-revoked.crt'), signature: readCert('mail-revoked.sig') },
        }),
      ),
    );
    assert.deepEqual(race.map((r) => r.statusCode).sort(), [201, 403]);
    await noCrl.app.close();
  });

  test('100 registrations a day per user, then 429 with Retry-After', async () => {
    const { limit } = RATE_LIMITS.register;
    let used = (
      await server.container.database.db
        .selectFrom('rate_limit_hits')
        .select('id')
        .where('bucket', '=', 'app-register')
        .where('subject', '=', String((await server.container.accounts.store.findUserByUsername('root'))?.id))
        .execute()
    ).length;
    while (used < limit) {
      assert.equal((await register('root', readCert('news.crt'), readCert('news.sig'))).statusCode, 204);
      used += 1;
    }
    const limited = await register('root', readCert('news.crt'), readCert('news.sig'));
    refused(limited, 429, 'rate_limited', /at most 100 in a day/);
    assert.ok(Number(limited.headers['retry-after']) > 0);
    clock.advance(RATE_LIMITS.register.windowMs);
    assert.equal((await register('root', readCert('news.crt'), readCert('news.sig'))).statusCode, 204);
  });
});
