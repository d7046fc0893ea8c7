import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setAppFlags } from '../../src/domain/apps/manage-apps.ts';
import { importCategories } from '../../src/domain/catalog/import-catalog.ts';
import { createUser } from '../helpers/accounts.ts';
import { TEST_ACTING } from '../helpers/acting.ts';
import { TestClock } from '../helpers/clock.ts';
import { readCert } from '../helpers/certificate-fixtures.ts';
import { candidate, registerDirectly } from '../helpers/listing-data.ts';
import { testAudit } from '../helpers/acting.ts';
import { runCommand } from '../helpers/run-cli.ts';
import { freePort } from '../helpers/serve-process.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';

/**
 * X-NC-Subscription-Key (issue 52): a key an administrator made lists the enterprise-only apps,
 * as include_enterprise=true does; an unknown or revoked key does not; only hashes are stored.
 */
describe(`subscription keys (${DIALECT})`, () => {
  let server: TestServer;
  let origin: string;
  const clock = new TestClock(new Date().toISOString());
  let key: string;

  before(async () => {
    server = await createTestServer({ now: clock.now });
    await importCategories(
      [{ id: 'tools', translations: { en: { name: 'Tools', description: '' } } }],
      TEST_ACTING,
      server.container.catalog,
    );
    const owner = await createUser(server.container, 'owner', null);
    for (const appId of ['news', 'notes']) {
      await registerDirectly(server.container, appId, readCert(`${appId}.crt`), owner.id, clock.now());
      await server.container.publishing.releases.saveRelease(
        candidate(appId, '1.0.0', '>=30.0.0 <33.0.0', appId),
        {
          download: `https://example.org/${appId}.tar.gz`,
          developerDownload: null,
          provenance: null,
          signature: 'c2ln',
          sha256: 'ab'.repeat(32),
          size: 10,
        },
        { confirm: () => undefined, isLatest: () => true },
        clock.now(),
        testAudit,
      );
    }
    await setAppFlags('notes', { enterpriseOnly: true }, TEST_ACTING, server.container.appManagement);
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    await server.app.listen({ host: '127.0.0.1', port });
  });
  after(() => server.close());

  const ids = async (headers: Record<string, string> = {}, url = '/api/v1/apps.json') => {
    const response = await fetch(`${origin}${url}`, { headers });
    return {
      response,
      ids: ((await response.json()) as Array<{ id: string }>).map((a) => a.id).sort(),
    };
  };

  test('a key made by the command lists the enterprise-only apps, privately; the store keeps its hash only', async () => {
    const made = await runCommand(['subscription-key', 'add', 'Example GmbH'], server.database.env);
    assert.equal(made.code, 0, made.stderr);
    key = made.stdout.trim();
    assert.match(key, /^ncsk_[A-Za-z0-9_-]{43}$/);
    assert.match(made.stderr, /subscription key 1 for Example GmbH \(shown once\)/);
    const rows = await server.container.database.db.selectFrom('subscription_keys').selectAll().execute();
    assert.equal(rows.length, 1);
    assert.ok(!JSON.stringify(rows).includes(key.slice(5)), 'the key is not in the database');

    assert.deepEqual((await ids()).ids, ['news']);
    const keyed = await ids({ 'x-nc-subscription-key': key });
    assert.deepEqual(keyed.ids, ['news', 'notes']);
    assert.equal(keyed.response.headers.get('cache-control'), 'private, no-cache');
    assert.match(keyed.response.headers.get('vary') ?? '', /X-NC-Subscription-Key/);
    assert.deepEqual((await ids({ 'x-nc-subscription-key': key }, '/api/v1/platform/31.0.0/apps.json')).ids, [
      'news',
      'notes',
    ]);
    assert.deepEqual((await ids({ 'x-nc-subscription-key': 'ncsk_not-a-key' })).ids, ['news']);
    assert.deepEqual((await ids({}, '/api/v1/apps.json?include_enterprise=true')).ids, ['news', 'notes'], 'as before');
  });

  test('a conditional poll with a key is never answered with the other listing’s 304', async () => {
    const plain = await fetch(`${origin}/api/v1/apps.json`);
    const etag = plain.headers.get('etag') ?? '';
    await plain.arrayBuffer();
    assert.equal((await fetch(`${origin}/api/v1/apps.json`, { headers: { 'if-none-match': etag } })).status, 304);
    const keyed = await fetch(`${origin}/api/v1/apps.json`, {
      headers: { 'if-none-match': etag, 'x-nc-subscription-key': key },
    });
    assert.equal(keyed.status, 200);
    assert.deepEqual(((await keyed.json()) as Array<{ id: string }>).map((a) => a.id).sort(), ['news', 'notes']);
  });

  test('listed and revoked by the command; a revoked key stops within a minute', async () => {
    const listed = await runCommand(['subscription-key', 'list'], server.database.env);
    assert.match(listed.stdout, /^1\tExample GmbH\t/);
    assert.equal((await runCommand(['subscription-key', 'revoke', '1'], server.database.env)).code, 0);
    assert.match((await runCommand(['subscription-key', 'list'], server.database.env)).stdout, /\trevoked /);
    clock.advance(61_000);
    assert.deepEqual((await ids({ 'x-nc-subscription-key': key })).ids, ['news']);
    const again = await runCommand(['subscription-key', 'revoke', '1'], server.database.env);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /no subscription key 1 in force/);
  });
});
