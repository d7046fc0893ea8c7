import assert from 'node:assert/strict';
import net from 'node:net';
import { Writable } from 'node:stream';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import { certFile } from '../helpers/certificate-fixtures.ts';
import { TEST_TLS_CA, startArchiveServer } from '../helpers/https-archive-server.ts';
import type { ArchiveServer } from '../helpers/https-archive-server.ts';
import { startOidcProvider } from '../helpers/oidc-provider.ts';
import type { LocalOidcProvider } from '../helpers/oidc-provider.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';
import { injectSend, publishFixtureRelease, registerFixtureApp } from '../helpers/store-actions.ts';
import { WebClient } from '../helpers/web-client.ts';
import { createUser } from '../helpers/accounts.ts';
import { TEST_ACTING } from '../helpers/acting.ts';
import { importCategories } from '../../src/domain/catalog/import-catalog.ts';

const PUBLIC_URL = 'https://apps.example.test';
const REDIRECT = `${PUBLIC_URL}/account/external/corp/callback`;
const STRONG = 'correct horse battery staple';

describe(`external login through an OpenID Provider (${DIALECT})`, () => {
  let idp: LocalOidcProvider;
  let files: ArchiveServer;
  let server: TestServer;
  let secretDir: string;

  before(async () => {
    idp = await startOidcProvider({ redirectUri: REDIRECT });
    files = await startArchiveServer();
    secretDir = fs.mkdtempSync(path.join(os.tmpdir(), 'oidc-secret-'));
    fs.writeFileSync(path.join(secretDir, 'corp.secret'), `${idp.clientSecret}\n`);
  });
  after(async () => {
    await idp.close();
    await files.close();
    fs.rmSync(secretDir, { recursive: true, force: true });
  });

  const env = (extra: Record<string, string> = {}): Record<string, string> => ({
    APPSTORE_PUBLIC_URL: PUBLIC_URL,
    APPSTORE_CA_CERT: certFile('chain.pem'),
    APPSTORE_DOWNLOAD_ALLOW_PRIVATE: '1',
    APPSTORE_OIDC_PROVIDERS: 'corp',
    APPSTORE_OIDC_CORP_ISSUER: idp.issuer,
    APPSTORE_OIDC_CORP_CLIENT_ID: idp.clientId,
    APPSTORE_OIDC_CORP_CLIENT_SECRET_FILE: path.join(secretDir, 'corp.secret'),
    APPSTORE_OIDC_CORP_NAME: 'Corp ID',
    APPSTORE_OIDC_CORP_SCOPES: 'openid email profile groups',
    ...extra,
  });
  const start = async (
    extra: Record<string, string> = {},
    options: { providerTimeoutSeconds?: number; logStream?: NodeJS.WritableStream } = {},
  ) => {
    await server?.close();
    server = await createTestServer({ env: env(extra), downloadCa: [TEST_TLS_CA], ...options });
    await importCategories(
      ['multimedia', 'tools'].map((id) => ({ id, translations: { en: { name: id, description: '' } } })),
      TEST_ACTING,
      server.container.catalog,
    );
  };
  beforeEach(async () => {
    idp.tamper = null;
    idp.people.clear();
    idp.people.set('alice', {
      email: 'alice@corp.example',
      email_verified: true,
      preferred_username: 'alice',
      given_name: 'Alice',
      family_name: 'Liddell',
      name: 'Alice Liddell',
      groups: ['staff'],
    });
    await start();
  });
  afterEach(async () => {
    idp.tamper = null;
  });
  after(async () => {
    await server.close();
  });

  const userCount = async () => (await server.container.accounts.store.listUsers()).length;
  const auditCount = async () => (await server.container.audit.find({ limit: 10_000 })).length;

  /** Begins the sign-in on the store: the provider's address the browser is sent to. */
  async function begin(web: WebClient, url = '/account/external/corp/start'): Promise<string> {
    const started = await web.get(url);
    assert.equal(started.statusCode, 303, started.body);
    const location = String(started.headers.location);
    assert.ok(location.startsWith(`${idp.issuer}/`), location);
    return location;
  }

  /** The provider's answer, as the store's callback path with its query. */
  const callbackPath = (url: URL): string => {
    assert.equal(`${url.origin}${url.pathname}`, REDIRECT);
    return `${url.pathname}${url.search}`;
  };

  /** The whole sign-in of `login` at the provider, up to the store's answer to the callback. */
  async function signIn(web: WebClient, login: string, url?: string) {
    const back = await idp.signIn(await begin(web, url), login);
    return web.get(callbackPath(back));
  }

  test('the first sign-in creates a password-less account that gets a token and publishes; the second finds it', async () => {
    const web = new WebClient(server.app);
    const login = await web.get('/account/login');
    assert.match(login.body, /href="\/account\/external\/corp\/start"[^>]*>Sign in with Corp ID</);
    const provider = new URL(await begin(web));
    assert.equal(provider.searchParams.get('code_challenge_method'), 'S256');
    for (const name of ['state', 'nonce', 'code_challenge'])
      assert.ok((provider.searchParams.get(name) ?? '').length >= 43, name);
    assert.equal(provider.searchParams.get('redirect_uri'), REDIRECT);

    const answer = await web.get(callbackPath(await idp.signIn(provider.href, 'alice')));
    assert.equal(answer.statusCode, 303, answer.body);
    assert.equal(answer.headers.location, '/account?welcome=corp');
    const page = await web.get('/account?welcome=corp');
    assert.match(page.body, /Welcome! Your account was created with Corp ID/);
    assert.match(page.body, /Corp ID<\/strong>: connected as alice/);
    const user = await server.container.accounts.store.findUserByUsername('alice');
    assert.ok(user !== null);
    assert.equal(user.hasPassword, false);
    assert.equal(user.email, 'alice@corp.example');
    assert.equal(user.emailVerified, true);
    assert.equal(`${user.firstName} ${user.lastName}`, 'Alice Liddell');
    assert.equal(user.isAdmin, false);
    const [created] = await server.container.audit.find({ event: 'user.created', limit: 10 });
    assert.equal(created?.subjectUser, 'alice');
    assert.deepEqual(created?.details, { admin: false, password: false, provider: 'corp' });

    // The token from the account page, then the API with it: register and publish.
    await web.post('/account/token', {});
    const token = /id="token-value"[^>]*value="([0-9a-f]{64})"/.exec(web.last?.body ?? '')?.[1];
    assert.ok(token !== undefined, 'the account page shows the token');
    const send = injectSend(server.app);
    assert.equal(await registerFixtureApp(send, token, 'news'), 201);
    const published = await publishFixtureRelease(send, token, files, { id: 'news', version: '1.0.0' });
    assert.equal(published.status, 201, published.text);
    // Basic with any password says the account has none.
    const basic = await send('POST', '/api/v1/token', {
      headers: { authorization: `Basic ${Buffer.from('alice:guess').toString('base64')}` },
    });
    assert.equal(basic.status, 401);
    assert.match(basic.json<{ detail: string }>().detail, /external login have no password/);

    // A second sign-in, in another browser, finds the same account.
    const users = await userCount();
    const other = new WebClient(server.app);
    const again = await signIn(other, 'alice', '/account/external/corp/start?next=%2Fdeveloper');
    assert.equal(again.statusCode, 303);
    assert.equal(again.headers.location, '/developer');
    assert.equal(await userCount(), users);
    assert.match((await other.get('/account')).body, /Signed in as alice/);
  });

  test("a name taken here asks for another, and the provider's address already confirmed by another account is not taken", async () => {
    await createUser(server.container, 'alice', STRONG, { email: 'alice@corp.example' });
    const web = new WebClient(server.app);
    const answer = await signIn(web, 'alice');
    assert.equal(answer.headers.location, '/account/external/username');
    const form = await web.get('/account/external/username');
    assert.match(form.body, /the name alice is taken here/);
    const taken = await web.post('/account/external/username', { username: 'alice' });
    assert.equal(taken.statusCode, 409);
    assert.match(taken.body, /The username &#39;alice&#39; is taken|The username 'alice' is taken/);
    // Another case is the same name (issue 49).
    const lookalike = await web.post('/account/external/username', { username: 'Alice' });
    assert.equal(lookalike.statusCode, 409);
    assert.match(lookalike.body, /The username &#39;Alice&#39; is taken|The username 'Alice' is taken/);
    const chosen = await web.post('/account/external/username', { username: 'alice.corp' });
    assert.equal(chosen.statusCode, 303, chosen.body);
    assert.equal(chosen.headers.location, '/account?welcome=corp&address=in-use');
    const user = await server.container.accounts.store.findUserByUsername('alice.corp');
    assert.equal(user?.email, null);
    assert.match((await web.get('/account?welcome=corp&address=in-use')).body, /already another account/);
    // The pending sign-up is used up.
    assert.equal((await web.post('/account/external/username', { username: 'alice.again' })).statusCode, 400);
  });

  /** What a refused callback must leave: no account, no audit entry, no session; a page that says why. */
  async function refused(web: WebClient, path: string, status: number, why: RegExp) {
    const users = await userCount();
    const audits = await auditCount();
    const answer = await web.get(path);
    assert.equal(answer.statusCode, status, answer.body);
    assert.match(String(answer.headers['content-type']), /text\/html/);
    assert.match(answer.body, why);
    assert.equal(web.cookies.has('appstore_session'), false);
    assert.equal(await userCount(), users);
    assert.equal(await auditCount(), audits);
    return answer;
  }

  describe('refusals: each says what happened and creates nothing', () => {
    test('a forged state', async () => {
      const web = new WebClient(server.app);
      const back = await idp.signIn(await begin(web), 'alice');
      back.searchParams.set('state', 'A'.repeat(43));
      await refused(web, callbackPath(back), 400, /does not match a sign-in under way/);
    });

    test('no state at all', async () => {
      const web = new WebClient(server.app);
      const back = await idp.signIn(await begin(web), 'alice');
      back.searchParams.delete('state');
      await refused(web, callbackPath(back), 400, /carries no state/);
    });

    test('a replayed callback, in the same browser and in another', async () => {
      const web = new WebClient(server.app);
      const back = await idp.signIn(await begin(web), 'alice');
      assert.equal((await web.get(callbackPath(back))).statusCode, 303);
      web.cookies.delete('appstore_session');
      await refused(web, callbackPath(back), 400, /was used already/);
      await refused(new WebClient(server.app), callbackPath(back), 400, /was used already/);
    });

    test('a callback in another browser than the one that began (login CSRF): refused, and the flow stays for the browser that began it', async () => {
      const victim = new WebClient(server.app);
      const attacker = new WebClient(server.app);
      const back = await idp.signIn(await begin(attacker), 'alice');
      await victim.get('/account/login');
      await refused(victim, callbackPath(back), 400, /begun in another browser/);
      await refused(new WebClient(server.app), callbackPath(back), 400, /begun in another browser/);
      // Opening it elsewhere did not use it up (issue 49): the browser that began it signs in.
      assert.equal((await attacker.get(callbackPath(back))).statusCode, 303);
      await refused(new WebClient(server.app), callbackPath(back), 400, /was used already/);
    });

    test('an ID token with another nonce', async () => {
      idp.tamper = (claims, sign) => sign.withProviderKey({ ...claims, nonce: 'a-nonce-of-another-sign-in' });
      const web = new WebClient(server.app);
      await refused(
        web,
        callbackPath(await idp.signIn(await begin(web), 'alice')),
        400,
        /made for another sign-in: its nonce/,
      );
    });

    test('an ID token signed by another key', async () => {
      idp.tamper = (claims, sign) => sign.withOtherKey(claims);
      const web = new WebClient(server.app);
      await refused(
        web,
        callbackPath(await idp.signIn(await begin(web), 'alice')),
        400,
        /signature does not verify with Corp ID&#39;s published keys|signature does not verify with Corp ID's published keys/,
      );
    });

    test('an expired ID token', async () => {
      const now = Math.floor(Date.now() / 1000);
      idp.tamper = (claims, sign) => sign.withProviderKey({ ...claims, iat: now - 7200, exp: now - 3600 });
      const web = new WebClient(server.app);
      await refused(web, callbackPath(await idp.signIn(await begin(web), 'alice')), 400, /has expired/);
    });

    test('an ID token for another audience', async () => {
      idp.tamper = (claims, sign) => sign.withProviderKey({ ...claims, aud: 'another-client' });
      const web = new WebClient(server.app);
      await refused(web, callbackPath(await idp.signIn(await begin(web), 'alice')), 400, /issued for another client/);
    });

    test('an error from the provider (the person cancelled)', async () => {
      const web = new WebClient(server.app);
      const back = await idp.cancel(await begin(web));
      assert.equal(back.searchParams.get('error'), 'access_denied');
      await refused(
        web,
        callbackPath(back),
        400,
        /Corp ID did not sign you in \(it answered &quot;access_denied: End-User aborted interaction&quot;\)|Corp ID did not sign you in \(it answered "access_denied: End-User aborted interaction"\)/,
      );
    });

    test('a provider that cannot be reached: 502 with a page, nothing created', async () => {
      await start({ APPSTORE_OIDC_CORP_ISSUER: 'https://localhost:1' });
      const web = new WebClient(server.app);
      const answer = await web.get('/account/external/corp/start');
      assert.equal(answer.statusCode, 502);
      assert.match(answer.body, /Corp ID cannot be reached/);
      assert.doesNotMatch(answer.body, /localhost:1/);
    });

    /** The store's log lines while `work` runs, parsed. */
    const logged = () => {
      const lines: Array<Record<string, unknown>> = [];
      const stream = new Writable({
        write(chunk: Buffer, _encoding, done) {
          for (const line of chunk.toString().split('\n'))
            if (line.trim() !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
          done();
        },
      });
      return { lines, stream };
    };

    test('a provider that accepts the connection and never answers: 502 (not a 400 blaming the person), the same page as the other refusals, an error in the log with its cause (issue 49)', async () => {
      // It holds each connection open and silent; closing it ends them too (else the store's TLS
      // client would wait out its own connect timeout, keeping this file's process alive).
      const held = new Set<net.Socket>();
      const silent = net.createServer((socket) => held.add(socket));
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      const { lines, stream } = logged();
      try {
        await start(
          { APPSTORE_OIDC_CORP_ISSUER: `https://127.0.0.1:${(silent.address() as net.AddressInfo).port}` },
          { providerTimeoutSeconds: 0.5, logStream: stream },
        );
        const web = new WebClient(server.app);
        const answer = await web.get('/account/external/corp/start');
        assert.equal(answer.statusCode, 502);
        assert.match(answer.body, /<h1>Sign-in with Corp ID failed|Corp ID/);
        assert.match(answer.body, /Corp ID cannot be reached, or does not answer as an identity provider should/);
        assert.match(answer.body, /href="\/account\/login"/, "the refusals' way back: try again");
        assert.doesNotMatch(answer.body, /127\.0\.0\.1/);
        const error = lines.find((line) => line['level'] === 50 && line['code'] === 'identity_provider_unavailable');
        assert.ok(error !== undefined, JSON.stringify(lines));
        assert.match(String(error['cause']), /timed out|TimeoutError|OAUTH_TIMEOUT/);
      } finally {
        for (const socket of held) socket.destroy();
        silent.close();
      }
    });

    test('a configured issuer that differs from the one the provider announces: a configuration error in the log naming both, a 502 for the person (issue 49)', async () => {
      const { lines, stream } = logged();
      const configured = idp.issuer.replace('localhost', '127.0.0.1');
      await start({ APPSTORE_OIDC_CORP_ISSUER: configured }, { logStream: stream });
      const web = new WebClient(server.app);
      const answer = await web.get('/account/external/corp/start');
      assert.equal(answer.statusCode, 502, answer.body);
      assert.match(answer.body, /Corp ID is not set up correctly on this store/);
      assert.doesNotMatch(answer.body, /127\.0\.0\.1|ISSUER/);
      const error = lines.find((line) => line['level'] === 50 && line['code'] === 'identity_provider_unavailable');
      assert.ok(error !== undefined, JSON.stringify(lines));
      assert.equal(
        error['cause'],
        `Error: configuration error: APPSTORE_OIDC_CORP_ISSUER is "${configured}" but the provider at that address announces the issuer "${idp.issuer}"; they must be the same (OpenID Connect Discovery): set APPSTORE_OIDC_CORP_ISSUER to "${idp.issuer}"`,
      );
    });
  });

  test('the admin claim grants administrator rights, and takes back only what it granted', async () => {
    await start({ APPSTORE_OIDC_CORP_ADMIN_CLAIM: 'groups=store-admins' });
    idp.people.set('alice', { ...idp.people.get('alice'), groups: ['staff', 'store-admins'] });
    await signIn(new WebClient(server.app), 'alice');
    assert.equal((await server.container.accounts.store.findUserByUsername('alice'))?.isAdmin, true);
    assert.deepEqual((await server.container.audit.find({ event: 'user.created', limit: 5 }))[0]?.details, {
      admin: true,
      password: false,
      provider: 'corp',
    });

    idp.people.set('alice', { ...idp.people.get('alice'), groups: ['staff'] });
    await signIn(new WebClient(server.app), 'alice');
    assert.equal((await server.container.accounts.store.findUserByUsername('alice'))?.isAdmin, false);
    const [revoked] = await server.container.audit.find({ event: 'user.admin_revoked', limit: 5 });
    assert.deepEqual(revoked?.details, { provider: 'corp', by: 'admin claim' });

    // Rights an administrator gave are not the claim's to take.
    await server.container.accounts.store.setAdmin(
      (await server.container.accounts.store.findUserByUsername('alice'))?.id ?? 0,
      true,
      new Date(),
      { acting: TEST_ACTING, event: 'user.admin_granted', appId: null, subjectUser: 'alice', details: {} },
    );
    await signIn(new WebClient(server.app), 'alice');
    assert.equal((await server.container.accounts.store.findUserByUsername('alice'))?.isAdmin, true);
    idp.people.set('alice', { ...idp.people.get('alice'), groups: ['store-admins'] });
    await signIn(new WebClient(server.app), 'alice');
    assert.equal(
      (await server.container.audit.find({ event: 'user.admin_granted', limit: 10 })).length,
      1,
      'the claim grants nothing new to an admin',
    );
  });

  test('the e-mail domain rule: a verified address in an allowed domain, else refused with the reason', async () => {
    await start({ APPSTORE_OIDC_CORP_EMAIL_DOMAINS: 'corp.example' });
    idp.people.set('bob', { email: 'bob@elsewhere.example', email_verified: true, preferred_username: 'bob' });
    idp.people.set('carl', { email: 'carl@corp.example', email_verified: false, preferred_username: 'carl' });
    idp.people.set('erin', {
      email: 'erin@corp.example',
      email_verified: true,
      preferred_username: 'erin.upn@corp.example',
    });
    let web = new WebClient(server.app);
    await refused(
      web,
      callbackPath(await idp.signIn(await begin(web), 'bob')),
      403,
      /open to addresses at corp.example only; Corp ID gave an address at elsewhere.example/,
    );
    web = new WebClient(server.app);
    await refused(
      web,
      callbackPath(await idp.signIn(await begin(web), 'carl')),
      403,
      /needs a verified e-mail address at corp.example, and Corp ID gave none/,
    );
    web = new WebClient(server.app);
    assert.equal((await signIn(web, 'alice')).statusCode, 303);
    assert.ok((await server.container.accounts.store.findUserByUsername('alice')) !== null);
    // An address-like name (Entra ID's UPN) is not made a public username: its local part is.
    assert.equal((await signIn(new WebClient(server.app), 'erin')).statusCode, 303);
    assert.ok((await server.container.accounts.store.findUserByUsername('erin.upn')) !== null);
  });

  test('closed sign-up through the provider: new identities are refused, connected ones sign in', async () => {
    await start({ APPSTORE_OIDC_CORP_SIGNUP: 'closed' });
    const web = new WebClient(server.app);
    await refused(web, callbackPath(await idp.signIn(await begin(web), 'alice')), 403, /by invitation only/);
  });

  test('linking from a signed-in account, never by a matching address; unlinking; the last way in kept', async () => {
    // Carol has a password account with the same address the provider gives Alice: nothing joins them by it.
    await createUser(server.container, 'carol', STRONG, { email: 'alice@corp.example' });
    const web = new WebClient(server.app);
    await web.get('/account/login');
    assert.equal(
      (await web.post('/account/login', { username: 'carol', password: STRONG, next: '/account' })).statusCode,
      303,
    );
    const account = await web.get('/account');
    assert.match(account.body, /Corp ID<\/strong>: not connected/);
    const link = /href="(\/account\/external\/corp\/link\?csrf_token=[^"]+)"/.exec(account.body)?.[1];
    assert.ok(link !== undefined, 'the account page has a Connect link');

    // Without the page's token, connecting is refused (another site cannot start it).
    const forged = await web.get('/account/external/corp/link?csrf_token=forged');
    assert.equal(forged.statusCode, 403);

    const started = await web.get(link.replace(/&amp;/g, '&'));
    assert.equal(started.statusCode, 303, started.body);
    const back = await web.get(callbackPath(await idp.signIn(String(started.headers.location), 'alice')));
    assert.equal(back.headers.location, '/account?connected=corp#methods');
    assert.match((await web.get('/account?connected=corp')).body, /Corp ID is now connected to your account/);
    const [linked] = await server.container.audit.find({ event: 'user.external_linked', limit: 5 });
    assert.equal(linked?.subjectUser, 'carol');
    assert.deepEqual(linked?.details, { provider: 'corp', as: 'alice' });

    // Signing in with the provider now opens Carol's account.
    const other = new WebClient(server.app);
    await signIn(other, 'alice');
    assert.match((await other.get('/account')).body, /Signed in as carol/);

    // The same identity cannot be connected to a second account.
    await createUser(server.container, 'dave', STRONG);
    const dave = new WebClient(server.app);
    await dave.get('/account/login');
    await dave.post('/account/login', { username: 'dave', password: STRONG });
    const daveLink =
      /href="(\/account\/external\/corp\/link\?csrf_token=[^"]+)"/.exec((await dave.get('/account')).body)?.[1] ?? '';
    const daveStart = await dave.get(daveLink.replace(/&amp;/g, '&'));
    const conflict = await dave.get(callbackPath(await idp.signIn(String(daveStart.headers.location), 'alice')));
    assert.equal(conflict.statusCode, 409);
    assert.match(conflict.body, /connected to another account/);

    // Carol has a password, so she may disconnect.
    await web.get('/account');
    const unlinked = await web.post('/account/external/corp/unlink', {});
    assert.equal(unlinked.statusCode, 200);
    assert.match(unlinked.body, /Corp ID is disconnected from your account/);
    assert.equal((await server.container.audit.find({ event: 'user.external_unlinked', limit: 5 })).length, 1);
  });

  test('an account without a password cannot disconnect its last way in; it can set a password, then Basic works', async () => {
    const web = new WebClient(server.app);
    await signIn(web, 'alice');
    const page = await web.get('/account');
    assert.match(page.body, /<h2 id="password">Set a password<\/h2>/);
    assert.doesNotMatch(page.body, /name="current_password"/);
    const refusedUnlink = await web.post('/account/external/corp/unlink', {});
    assert.equal(refusedUnlink.statusCode, 409);
    assert.match(refusedUnlink.body, /Corp ID is the only way into your account: set a password/);
    assert.equal(
      (
        await server.container.externalLogin.identities.identitiesOf(
          (await server.container.accounts.store.findUserByUsername('alice'))?.id ?? 0,
        )
      ).length,
      1,
    );

    const set = await web.post('/account/password', { password: STRONG });
    assert.equal(set.statusCode, 200, set.body);
    const send = injectSend(server.app);
    const basic = await send('POST', '/api/v1/token', {
      headers: { authorization: `Basic ${Buffer.from(`alice:${STRONG}`).toString('base64')}` },
    });
    assert.equal(basic.status, 200, basic.text);
    await web.get('/account');
    assert.equal((await web.post('/account/external/corp/unlink', {})).statusCode, 200);
  });

  test('an account without a password deletes itself by typing its username; its identity goes with it', async () => {
    const web = new WebClient(server.app);
    await signIn(web, 'alice');
    const page = await web.get('/account');
    assert.match(page.body, /name="confirm_username"/);
    const wrong = await web.post('/account/delete', { confirm_username: 'bob' });
    assert.equal(wrong.statusCode, 400);
    assert.match(wrong.body, /Type your username to confirm/);
    assert.equal((await web.post('/account/delete', { confirm_username: 'alice' })).statusCode, 200);
    assert.equal(await server.container.accounts.store.findUserByUsername('alice'), null);
    // The identity is free again: the next sign-in is a new account.
    const again = await signIn(new WebClient(server.app), 'alice');
    assert.equal(again.headers.location, '/account?welcome=corp');
  });

  test('connecting ends in the account that asked: signed out (or in as another) meanwhile, it is refused', async () => {
    await createUser(server.container, 'carol', STRONG);
    const web = new WebClient(server.app);
    await web.get('/account/login');
    await web.post('/account/login', { username: 'carol', password: STRONG });
    const link =
      /href="(\/account\/external\/corp\/link\?csrf_token=[^"]+)"/.exec((await web.get('/account')).body)?.[1] ?? '';
    const started = await web.get(link.replace(/&amp;/g, '&'));
    const back = await idp.signIn(String(started.headers.location), 'alice');
    await web.get('/account');
    assert.equal((await web.post('/account/logout', {})).statusCode, 303);
    await refused(web, callbackPath(back), 400, /no longer signed in to the account that asked/);
  });

  test('rights the admin claim granted go when its identity is disconnected, so they cannot be kept by reconnecting', async () => {
    await start({ APPSTORE_OIDC_CORP_ADMIN_CLAIM: 'groups=store-admins' });
    idp.people.set('alice', { ...idp.people.get('alice'), groups: ['store-admins'] });
    const web = new WebClient(server.app);
    await signIn(web, 'alice');
    await web.get('/account');
    assert.equal((await web.post('/account/password', { password: STRONG })).statusCode, 200);
    await web.get('/account');
    assert.equal((await web.post('/account/external/corp/unlink', {})).statusCode, 200);
    assert.equal((await server.container.accounts.store.findUserByUsername('alice'))?.isAdmin, false);
    const [revoked] = await server.container.audit.find({ event: 'user.admin_revoked', limit: 5 });
    assert.deepEqual(revoked?.details, { provider: 'corp', by: 'admin claim', reason: 'disconnected' });
  });

  test('two first sign-ins of one person waiting for a username: the second is told, not a 500; hostile claims are cleaned', async () => {
    await createUser(server.container, 'alice', STRONG);
    const first = new WebClient(server.app);
    const second = new WebClient(server.app);
    assert.equal((await signIn(first, 'alice')).headers.location, '/account/external/username');
    assert.equal((await signIn(second, 'alice')).headers.location, '/account/external/username');
    await first.get('/account/external/username');
    assert.equal((await first.post('/account/external/username', { username: 'alice1' })).statusCode, 303);
    await second.get('/account/external/username');
    const late = await second.post('/account/external/username', { username: 'alice2' });
    assert.equal(late.statusCode, 409, late.body);
    assert.match(late.body, /got an account meanwhile/);

    idp.people.set('mallory', {
      email: 'a@evil.example@corp.example',
      email_verified: true,
      preferred_username: 'mal\u0000lory',
      family_name: '\u0000\u202eevil',
      given_name: 'M',
    });
    const web = new WebClient(server.app);
    assert.equal((await signIn(web, 'mallory')).statusCode, 303);
    const user = await server.container.accounts.store.findUserByUsername('mallory');
    assert.ok(user !== null, 'control characters are dropped from the name');
    assert.equal(user.email, null, 'an address with two @ is no address');
    assert.equal(user.lastName, 'evil');
  });
});
