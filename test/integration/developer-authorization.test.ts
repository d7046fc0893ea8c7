import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setActive } from '../../src/domain/accounts/manage-users.ts';
import { importCategories } from '../../src/domain/catalog/import-catalog.ts';
import { createUser } from '../helpers/accounts.ts';
import { TEST_ACTING } from '../helpers/acting.ts';
import { certFile } from '../helpers/certificate-fixtures.ts';
import { TEST_TLS_CA, startArchiveServer } from '../helpers/https-archive-server.ts';
import type { ArchiveServer } from '../helpers/https-archive-server.ts';
import { injectSend, publishFixtureRelease, registerFixtureApp, userWithToken } from '../helpers/store-actions.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';
import { WebClient } from '../helpers/web-client.ts';
import { addCoMaintainer } from '../../src/domain/apps/manage-apps.ts';

type Actor = 'anonymous' | 'unrelated' | 'co-maintainer' | 'disabled';

/** Every action of the developer and admin pages, with who besides its rightful users is refused. */
const ACTIONS: ReadonlyArray<{
  readonly url: string;
  readonly fields: Record<string, string>;
  readonly refused: readonly Actor[];
}> = [
  {
    url: '/developer/apps/news/releases/delete',
    fields: { version: '1.0.0', nightly: '' },
    refused: ['anonymous', 'unrelated', 'disabled'],
  },
  {
    url: '/developer/apps/news/maintainers/add',
    fields: { username: 'bob' },
    refused: ['anonymous', 'unrelated', 'co-maintainer', 'disabled'],
  },
  {
    url: '/developer/apps/news/maintainers/remove',
    fields: { username: 'carol' },
    refused: ['anonymous', 'unrelated', 'disabled'],
  },
  {
    url: '/developer/apps/news/transfer',
    fields: { unlock: 'on' },
    refused: ['anonymous', 'unrelated', 'co-maintainer', 'disabled'],
  },
  {
    url: '/developer/apps/news/flags',
    fields: { featured: 'on' },
    refused: ['anonymous', 'unrelated', 'co-maintainer', 'disabled'],
  },
  {
    url: '/developer/apps/news/delete',
    fields: { confirm: 'news' },
    refused: ['anonymous', 'unrelated', 'co-maintainer', 'disabled'],
  },
  {
    url: '/admin/users/active',
    fields: { username: 'alice', active: '' },
    refused: ['anonymous', 'unrelated', 'co-maintainer', 'disabled'],
  },
  {
    url: '/admin/users/admin',
    fields: { username: 'bob', admin: 'on' },
    refused: ['anonymous', 'unrelated', 'co-maintainer', 'disabled'],
  },
  {
    url: '/admin/users/invite',
    fields: { username: 'eve', email: 'eve@example.org' },
    refused: ['anonymous', 'unrelated', 'co-maintainer', 'disabled'],
  },
  {
    url: '/admin/categories',
    fields: { id: 'tools', language: 'en', name: 'Renamed' },
    refused: ['anonymous', 'unrelated', 'co-maintainer', 'disabled'],
  },
  {
    url: '/admin/platforms',
    fields: { version: '33.0.0', hasRelease: 'on', isSupported: 'on' },
    refused: ['anonymous', 'unrelated', 'co-maintainer', 'disabled'],
  },
  {
    url: '/admin/discover',
    fields: { entries: '[]' },
    refused: ['anonymous', 'unrelated', 'co-maintainer', 'disabled'],
  },
  {
    url: '/admin/certificates/approval',
    fields: { required: 'on' },
    refused: ['anonymous', 'unrelated', 'co-maintainer', 'disabled'],
  },
  {
    url: '/admin/certificates/revoke',
    fields: { certificate: '' },
    refused: ['anonymous', 'unrelated', 'co-maintainer', 'disabled'],
  },
  {
    url: '/admin/certificates/reject',
    fields: { id: '1', reason: 'no' },
    refused: ['anonymous', 'unrelated', 'co-maintainer', 'disabled'],
  },
];

const PAGES = [
  '/developer/apps/news',
  '/admin',
  '/admin/users',
  '/admin/apps',
  '/admin/categories',
  '/admin/platforms',
  '/admin/discover',
  '/admin/certificates',
  '/admin/audit',
];

describe(`who may do what on the developer and admin pages, and through the API (${DIALECT})`, () => {
  let server: TestServer;
  let files: ArchiveServer;
  const clients = new Map<Actor, WebClient>();
  const passwords = {
    alice: 'alpha bravo charlie delta',
    bob: 'echo foxtrot golf hotel',
    carol: 'india juliet kilo lima',
    dave: 'mike november oscar papa',
  };

  before(async () => {
    files = await startArchiveServer();
    server = await createTestServer({
      env: { APPSTORE_CA_CERT: certFile('chain.pem'), APPSTORE_DOWNLOAD_ALLOW_PRIVATE: '1' },
      downloadCa: [TEST_TLS_CA],
    });
    await importCategories(
      ['multimedia', 'tools'].map((id) => ({ id, translations: { en: { name: id, description: '' } } })),
      TEST_ACTING,
      server.container.catalog,
    );
    const token = await userWithToken(server.container, 'alice', passwords.alice);
    const send = injectSend(server.app);
    assert.equal(await registerFixtureApp(send, token, 'news'), 201);
    assert.equal((await publishFixtureRelease(send, token, files, { id: 'news', version: '1.0.0' })).status, 201);
    for (const name of ['bob', 'carol', 'dave'] as const) await createUser(server.container, name, passwords[name]);
    await addCoMaintainer('news', 'carol', TEST_ACTING, server.container.appManagement);
    const signIn = async (name: keyof typeof passwords) => {
      const client = new WebClient(server.app);
      await client.get('/account/login');
      const answer = await client.post('/account/login', {
        username: name,
        password: passwords[name],
        next: '/developer',
      });
      assert.equal(answer.statusCode, 303, answer.body);
      return client;
    };
    clients.set('anonymous', new WebClient(server.app));
    clients.set('unrelated', await signIn('bob'));
    clients.set('co-maintainer', await signIn('carol'));
    clients.set('disabled', await signIn('dave'));
    await setActive('dave', false, TEST_ACTING, server.container.accounts);
  });
  after(async () => {
    await server.close();
    await files.close();
  });

  /** What any refused action would have changed: the audit log (every change writes it) and the listings. */
  const snapshot = async () => ({
    audit: (await server.container.audit.find({ limit: 10_000 })).length,
    apps: (await server.app.inject({ method: 'GET', url: '/api/v1/apps.json' })).body,
    categories: (await server.app.inject({ method: 'GET', url: '/api/v1/categories.json' })).body,
    users: (await server.container.accounts.store.listUsers())
      .map((u) => `${u.username}:${u.isActive}:${u.isAdmin}`)
      .join(','),
  });

  test('every action is refused to those it is not for, and nothing changes', async () => {
    const before = await snapshot();
    for (const action of ACTIONS) {
      for (const actor of action.refused) {
        const client = clients.get(actor);
        assert.ok(client !== undefined);
        // The form's token as the actor's browser has it: from a page of the site (signed in: the header's sign-out form).
        await client.get(actor === 'anonymous' ? '/account/login' : '/');
        const csrf = /name="csrf_token" value="([^"]+)"/.exec(client.last?.body ?? '')?.[1] ?? null;
        const answer = await client.post(action.url, action.fields, csrf);
        const where = `${actor} ${action.url}: ${answer.statusCode} ${answer.body.slice(0, 200)}`;
        if (actor === 'anonymous' || actor === 'disabled') {
          // Not signed in (a disabled account's session ended): on to sign in, or the form refused.
          assert.ok(
            answer.statusCode === 303
              ? /^\/account\/login\?next=/.test(String(answer.headers.location))
              : answer.statusCode === 403,
            where,
          );
        } else {
          assert.equal(answer.statusCode, 403, where);
          assert.match(answer.body, /Only (the owner|administrators)/, where);
        }
      }
    }
    assert.deepEqual(await snapshot(), before);
  });

  test('the pages themselves: managed apps and the admin pages refuse others', async () => {
    for (const url of PAGES) {
      const anonymous = await clients.get('anonymous')?.get(url);
      assert.equal(anonymous?.statusCode, 303, url);
      for (const actor of ['unrelated', 'disabled'] as const) {
        const answer = await clients.get(actor)?.get(url);
        assert.equal(answer?.statusCode, actor === 'disabled' ? 303 : 403, `${actor} ${url}`);
      }
    }
    assert.equal((await clients.get('co-maintainer')?.get('/developer/apps/news'))?.statusCode, 200);
    assert.equal((await clients.get('co-maintainer')?.get('/admin/users'))?.statusCode, 403);
  });

  test('through the API: the same rules, nothing changed', async () => {
    const before = await snapshot();
    const tokens = { bob: await userWithToken(server.container, 'bob_api'), carol: '' };
    const carolToken = (
      await server.app.inject({
        method: 'POST',
        url: '/api/v1/token',
        headers: { authorization: `Basic ${Buffer.from(`carol:${passwords.carol}`).toString('base64')}` },
      })
    ).json() as { token: string };
    tokens.carol = carolToken.token;
    const call = (method: 'DELETE', url: string, token: string | null) =>
      server.app.inject({ method, url, headers: token === null ? {} : { authorization: `Token ${token}` } });
    assert.equal((await call('DELETE', '/api/v1/apps/news', null)).statusCode, 401);
    assert.equal((await call('DELETE', '/api/v1/apps/news', tokens.bob)).statusCode, 403);
    assert.equal((await call('DELETE', '/api/v1/apps/news', tokens.carol)).statusCode, 403);
    assert.equal((await call('DELETE', '/api/v1/apps/news/releases/1.0.0', tokens.bob)).statusCode, 403);
    const dave = await server.app.inject({
      method: 'POST',
      url: '/api/v1/token',
      headers: { authorization: `Basic ${Buffer.from(`dave:${passwords.dave}`).toString('base64')}` },
    });
    assert.equal(dave.statusCode, 401);
    const after = await snapshot();
    // bob_api's token is the only change (a new user and their token).
    assert.equal(after.apps, before.apps);
  });
});
