import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cliActing } from '../../src/domain/audit/audit.ts';
import { addPublisher, allowIssuer, listPublishers } from '../../src/domain/trusted-publishing/trusted-publishing.ts';
import { unlockTransfer } from '../../src/domain/apps/manage-apps.ts';
import { createUser } from '../helpers/accounts.ts';
import { TEST_ACTING } from '../helpers/acting.ts';
import { startCiIssuers, githubClaims, gitlabClaims } from '../helpers/ci-issuer.ts';
import type { CiIssuers } from '../helpers/ci-issuer.ts';
import { certFile } from '../helpers/certificate-fixtures.ts';
import { TestClock } from '../helpers/clock.ts';
import { startArchiveServer, TEST_TLS_CA } from '../helpers/https-archive-server.ts';
import type { ArchiveServer } from '../helpers/https-archive-server.ts';
import {
  importTestCategories,
  injectSend,
  publishFixtureRelease,
  registerFixtureApp,
  userWithToken,
} from '../helpers/store-actions.ts';
import type { Send } from '../helpers/store-actions.ts';
import { WebClient } from '../helpers/web-client.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';

const AUDIENCE = 'https://store.example';

/**
 * Trusted publishing (issue 53 §1, §2): a CI job's ID token from a local issuer shaped like GitHub
 * Actions' and GitLab's becomes a 15-minute token that publishes one app; every refusal the issue
 * lists is here (forged signature, another repository, another workflow, expired, replayed, wrong
 * audience, issuer not allowed, a re-created repository), and the release records its provenance.
 */
describe(`trusted publishing (${DIALECT})`, () => {
  let server: TestServer;
  let issuers: CiIssuers;
  let files: ArchiveServer;
  let send: Send;
  let aliceToken: string;
  const clock = new TestClock(new Date().toISOString());

  const exchange = async (idToken: string, app?: string) =>
    send('POST', '/api/v1/trusted-publishing/token', {
      payload: { token: idToken, ...(app === undefined ? {} : { app }) },
    });
  const refused = async (idToken: string, status: number, detail: RegExp, app?: string) => {
    const answer = await exchange(idToken, app);
    assert.equal(answer.status, status, answer.text);
    assert.match(answer.json<{ detail: string }>().detail, detail);
    return answer.json<{ detail: string; errors?: Record<string, string[]> }>();
  };

  before(async () => {
    issuers = await startCiIssuers();
    files = await startArchiveServer();
    server = await createTestServer({
      now: clock.now,
      env: {
        APPSTORE_CA_CERT: certFile('chain.pem'),
        APPSTORE_DOWNLOAD_ALLOW_PRIVATE: '1',
        APPSTORE_PUBLIC_URL: AUDIENCE,
      },
      downloadCa: [TEST_TLS_CA],
    });
    send = injectSend(server.app);
    await importTestCategories(server.container);
    aliceToken = await userWithToken(server.container, 'alice');
    await registerFixtureApp(send, aliceToken, 'news');
    const bobToken = await userWithToken(server.container, 'bob', 'bob password here');
    await registerFixtureApp(send, bobToken, 'notes');
    const admin = cliActing('root');
    const deps = server.container.trustedPublishing;
    await allowIssuer({ url: issuers.github.url, provider: 'github', name: 'Local Actions' }, admin, deps);
    await allowIssuer({ url: issuers.gitlab.url, provider: 'gitlab', name: 'Local GitLab' }, admin, deps);
    const alice = {
      actor: { kind: 'user', userId: 1, name: 'alice' },
      isAdmin: false,
      address: null,
      requestId: null,
    } as const;
    await addPublisher(
      'news',
      {
        provider: 'github',
        issuer: issuers.github.url,
        repository: 'alice/news',
        workflow: 'release.yml',
        environment: 'release',
      },
      alice,
      deps,
    );
    await addPublisher(
      'news',
      { provider: 'gitlab', issuer: issuers.gitlab.url, repository: 'group/news', ref: 'main' },
      alice,
      deps,
    );
  });
  after(async () => {
    await server.close();
    await issuers.close();
    await files.close();
  });

  test('a GitHub job publishes with no stored secret; the release records where it came from', async () => {
    const idToken = await issuers.github.mint(githubClaims({ aud: AUDIENCE }), { now: clock.now() });
    const answer = await exchange(idToken);
    assert.equal(answer.status, 200, answer.text);
    const body = answer.json<{ token: string; expiresAt: string; app: string; scopes: string[] }>();
    assert.match(body.token, /^aptp_[0-9A-Za-z]{46}$/);
    assert.equal(body.app, 'news');
    assert.deepEqual(body.scopes, ['release:publish']);
    assert.equal(Date.parse(body.expiresAt) - clock.now().getTime(), 15 * 60_000);

    const published = await publishFixtureRelease(send, body.token, files, { id: 'news', version: '1.0.0' });
    assert.equal(published.status, 201, published.text);
    const apps = await send('GET', '/api/v1/platform/30.0.0/apps.json');
    const release = apps
      .json<Array<{ id: string; releases: Array<Record<string, unknown>> }>>()
      .find((a) => a.id === 'news')?.releases[0];
    assert.deepEqual(release?.provenance, {
      provider: 'github',
      issuer: issuers.github.url,
      repository: 'alice/news',
      commit: '4a8b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b',
      workflow: 'alice/news/.github/workflows/release.yml@refs/tags/v1.0.0',
      ref: 'refs/tags/v1.0.0',
      environment: 'release',
      runId: '9001/1',
      runUrl: `${issuers.github.url.replace(/\/_services\/token$/, '')}/alice/news/actions/runs/9001/attempts/1`,
    });
    const [exchanged] = await server.container.audit.find({ event: 'trusted_publishing.exchanged', limit: 1 });
    assert.equal(exchanged?.details.repository, 'alice/news');
    assert.equal(exchanged?.details.run_id, '9001');
    assert.equal(exchanged?.subjectUser, 'alice');
    const [release1] = await server.container.audit.find({ event: 'release.published', appId: 'news', limit: 1 });
    assert.equal(release1?.details.provenance, 'github');
    assert.match(String(release1?.details.via), /^trusted publishing token #\d+/);

    // It may publish only: not delete, not another app.
    const deleted = await send('DELETE', '/api/v1/apps/news/releases/1.0.0', {
      headers: { authorization: `Token ${body.token}` },
    });
    assert.equal(deleted.status, 403, deleted.text);
    const other = await publishFixtureRelease(send, body.token, files, { id: 'notes', version: '1.0.0' });
    assert.equal(other.status, 403, other.text);
    assert.equal(other.json<{ code: string }>().code, 'insufficient_scope');
    // A plain publish afterwards leaves no provenance on its release.
    const plain = await publishFixtureRelease(send, aliceToken, files, { id: 'news', version: '1.0.1' });
    assert.equal(plain.status, 201, plain.text);
    const listed = (await send('GET', '/api/v1/platform/30.0.0/apps.json')).json<
      Array<{ id: string; releases: Array<Record<string, unknown>> }>
    >();
    const news = listed.find((a) => a.id === 'news');
    assert.equal(news?.releases.find((r) => r.version === '1.0.1')?.provenance, undefined);
  });

  test('each refusal says which claim did not match', async () => {
    const now = clock.now();
    await refused(
      await issuers.github.mint(githubClaims({ aud: AUDIENCE }), { now, forged: true }),
      401,
      /signature does not verify/,
    );
    const another = await refused(
      await issuers.github.mint(githubClaims({ aud: AUDIENCE, repository: 'mallory/news' }), { now }),
      403,
      /No app on this store trusts this CI job: no trusted publisher matches repository \(the token says "mallory\/news"\)/,
    );
    assert.deepEqual(Object.keys(another.errors ?? {}), ['claims.repository']);
    const workflow = await refused(
      await issuers.github.mint(githubClaims({ aud: AUDIENCE, workflow: 'build.yml' }), { now }),
      403,
      /the workflow is not the trusted one/,
    );
    assert.ok(!JSON.stringify(workflow).includes('release.yml'), 'the trusted workflow is not told');
    await refused(
      await issuers.github.mint(githubClaims({ aud: AUDIENCE, environment: 'staging' }), { now }),
      403,
      /environment/,
    );
    await refused(
      await issuers.github.mint(githubClaims({ aud: AUDIENCE }), { now: new Date(now.getTime() - 3_600_000) }),
      401,
      /it has expired \(exp\)/,
    );
    await refused(
      await issuers.github.mint(githubClaims({ aud: 'https://other-store.example' }), { now }),
      401,
      /audience \(aud\) is not this store: request the token with the audience "https:\/\/store.example"/,
    );
    await refused(
      await issuers.github.mint(githubClaims({ aud: AUDIENCE }), { now: new Date(now.getTime() + 600_000) }),
      401,
      /nbf|iat|future/,
    );
    await refused(await issuers.other.mint({ sub: 'x', aud: AUDIENCE }, { now }), 401, /is not one this store allows/);
    await refused('not.a.jwt', 401, /not a JWT/);

    await refused(
      await issuers.github.mint(githubClaims({ aud: AUDIENCE }), { now, lifetimeSeconds: 8 * 86_400 }),
      401,
      /more than 7 days/,
    );
    await refused(
      await issuers.github.mint(
        githubClaims({ aud: AUDIENCE, workflow_ref: 'alice/news/.github/workflows/RELEASE.YML@refs/tags/v1.0.0' }),
        { now },
      ),
      403,
      /the workflow is not the trusted one/,
    );
    await refused(await issuers.github.mint(githubClaims({ aud: AUDIENCE }), { now }), 404, /nosuchapp/, 'nosuchapp');

    const once = await issuers.github.mint(githubClaims({ aud: AUDIENCE }), { now });
    assert.equal((await exchange(once)).status, 200);
    await refused(once, 401, /exchanged already: each is used once/);
    // Other texts of the same token: spare bits of the last base64url character, whitespace.
    const last = once.at(-1) ?? 'A';
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const sibling = `${once.slice(0, -1)}${alphabet[alphabet.indexOf(last) ^ 1]}`;
    for (const text of [sibling, `${once} `, `${once.slice(0, -4)} ${once.slice(-4)}`]) {
      const answer = await exchange(text);
      assert.equal(answer.status, 401, `${answer.text}`);
    }
    // Without a jti, the signature's bytes mark it.
    const anonymous = await issuers.github.mint(githubClaims({ aud: AUDIENCE, jti: undefined }), { now });
    assert.equal((await exchange(anonymous)).status, 200);
    await refused(anonymous, 401, /exchanged already/);
  });

  test('a deleted and re-created repository of the same name is not trusted (ids pinned at first use)', async () => {
    await refused(
      await issuers.github.mint(githubClaims({ aud: AUDIENCE, repository_id: '9999' }), { now: clock.now() }),
      403,
      /repository_id differs from the one this publisher trusts \(the token says "9999"\): the repository was deleted and made again/,
    );
    await refused(
      await issuers.github.mint(githubClaims({ aud: AUDIENCE, repository_owner_id: '7777' }), { now: clock.now() }),
      403,
      /repository_owner_id differs/,
    );
  });

  test('the issuer rotates its key: the store fetches the keys again on the unknown kid', async () => {
    const before = issuers.github.keysFetched;
    await issuers.github.rotate();
    clock.advance(10_000);
    const answer = await exchange(await issuers.github.mint(githubClaims({ aud: AUDIENCE }), { now: clock.now() }));
    assert.equal(answer.status, 200, answer.text);
    assert.equal(issuers.github.keysFetched, before + 1);
    // Cached: the next token with the same key reads no keys.
    assert.equal(
      (await exchange(await issuers.github.mint(githubClaims({ aud: AUDIENCE }), { now: clock.now() }))).status,
      200,
    );
    assert.equal(issuers.github.keysFetched, before + 1);
  });

  test('a GitLab job: project, ref and ids; the token names the app when asked', async () => {
    const token = await issuers.gitlab.mint(gitlabClaims({ aud: AUDIENCE }), { now: clock.now() });
    const answer = await exchange(token, 'news');
    assert.equal(answer.status, 200, answer.text);
    const published = await publishFixtureRelease(send, answer.json<{ token: string }>().token, files, {
      id: 'news',
      version: '1.1.0',
    });
    assert.equal(published.status, 201, published.text);
    const listed = (await send('GET', '/api/v1/platform/30.0.0/apps.json')).json<
      Array<{ id: string; releases: Array<{ version: string; provenance?: Record<string, unknown> }> }>
    >();
    const provenance = listed.find((a) => a.id === 'news')?.releases.find((r) => r.version === '1.1.0')?.provenance;
    assert.equal(provenance?.provider, 'gitlab');
    assert.equal(provenance?.runUrl, `${issuers.gitlab.url}/group/news/-/pipelines/1212`);

    await refused(
      await issuers.gitlab.mint(gitlabClaims({ aud: AUDIENCE, ref: 'feature' }), { now: clock.now() }),
      403,
      /another ref \(the token says "feature"\)/,
    );
    await refused(
      await issuers.gitlab.mint(gitlabClaims({ aud: AUDIENCE, ref_type: 'tag', ref_path: 'refs/tags/main' }), {
        now: clock.now(),
      }),
      403,
      /another ref/,
    );
    await refused(
      await issuers.gitlab.mint(gitlabClaims({ aud: AUDIENCE }), { now: clock.now() }),
      403,
      /The app notes does not trust this CI job/,
      'notes',
    );
  });

  test('registering: checked fields, owner or admin only, another issuer only once allowed and with its claims', async () => {
    const deps = server.container.trustedPublishing;
    const bob = {
      actor: { kind: 'user', userId: 2, name: 'bob' },
      isAdmin: false,
      address: null,
      requestId: null,
    } as const;
    await assert.rejects(
      addPublisher('news', { provider: 'github', repository: 'bob/news', workflow: 'x.yml' }, bob, deps),
      /Only the owner of news/,
    );
    await assert.rejects(
      addPublisher('notes', { provider: 'github', repository: 'not a repo', workflow: 'x.yml' }, bob, deps),
      (error: { errors?: Record<string, string[]> }) => Object.keys(error.errors ?? {})[0] === 'repository',
    );
    await assert.rejects(
      addPublisher('notes', { provider: 'oidc', issuer: issuers.other.url, claims: { sub: 'x' } }, bob, deps),
      /is not an issuer this store allows/,
    );
    await allowIssuer({ url: issuers.other.url, provider: 'oidc', requiredClaims: ['sub'] }, TEST_ACTING, deps);
    await assert.rejects(
      addPublisher('notes', { provider: 'oidc', issuer: issuers.other.url, claims: { project: 'notes' } }, bob, deps),
      /must match the claims sub/,
    );
    await addPublisher(
      'notes',
      { provider: 'oidc', issuer: issuers.other.url, claims: { sub: 'ci:notes' } },
      bob,
      deps,
    );
    const ok = await exchange(await issuers.other.mint({ sub: 'ci:notes', aud: AUDIENCE }, { now: clock.now() }));
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.json<{ app: string }>().app, 'notes');
    await refused(
      await issuers.other.mint({ sub: 'ci:news', aud: AUDIENCE }, { now: clock.now() }),
      403,
      /sub does not match/,
    );
    await assert.rejects(
      allowIssuer({ url: 'https://x.example', provider: 'oidc', requiredClaims: ['sub'] }, bob, deps),
      /Only administrators/,
    );
    await assert.rejects(
      addPublisher('notes', { provider: 'gitlab', repository: 'bob/notes', workflow: 'release.yml' }, bob, deps),
      /GitLab publishers have no workflow/,
    );
    await createUser(server.container, 'carol', null);
  });

  test('the manage page adds and removes publishers; the app page shows where a release came from', async () => {
    const web = new WebClient(server.app);
    await web.get('/account/login');
    await web.post('/account/login', { username: 'bob', password: 'bob password here', next: '/developer' });
    const page = await web.get('/developer/apps/notes');
    assert.match(page.body, /Trusted publishers/);
    const wrong = await web.post('/developer/apps/notes/publishers/add', {
      provider: 'github',
      repository: 'bob',
      workflow: 'x.yml',
    });
    assert.equal(wrong.statusCode, 400);
    assert.match(wrong.body, /name the repository as owner\/name/);
    const added = await web.post('/developer/apps/notes/publishers/add', {
      provider: 'github',
      repository: 'bob/notes',
      workflow: '.github/workflows/release.yml',
      environment: '',
      issuer: '',
    });
    assert.equal(added.statusCode, 200, added.body);
    assert.match(added.body, /GitHub bob\/notes \.github\/workflows\/release\.yml/);
    const id = /name="id" value="(\d+)"/.exec(added.body)?.[1];
    assert.ok(id !== undefined);
    const removed = await web.post('/developer/apps/notes/publishers/remove', { id });
    assert.equal(removed.statusCode, 200, removed.body);
    assert.ok(!removed.body.includes(`name="id" value="${id}"`), 'no longer listed');
    assert.match(removed.body, /The trusted publisher was removed/);
    // Another owner's app: refused.
    const other = await web.post('/developer/apps/news/publishers/add', {
      provider: 'github',
      repository: 'bob/news',
      workflow: 'x.yml',
    });
    assert.equal(other.statusCode, 403);

    // The CI token the other issuer's job got for notes is listed to its owner, who can revoke it.
    const tokens = await web.get('/account/tokens');
    assert.match(tokens.body, /CI jobs publishing now/);
    assert.match(tokens.body, /<th scope="row">ci:notes run [0-9a-f-]+<\/th>/);

    const appPage = await send('GET', '/apps/news', { headers: { accept: 'text/html' } });
    assert.match(
      appPage.text,
      /Published from<\/dt><dd><a href="[^"]+\/alice\/news\/actions\/runs\/9001\/attempts\/1"/,
    );
  });

  test('a new owner starts without the old owner’s trusted publishers', async () => {
    assert.ok((await listPublishers('news', server.container.trustedPublishing)).length > 0);
    await unlockTransfer('news', TEST_ACTING, server.container.appManagement);
    const carol = await userWithToken(server.container, 'dave');
    assert.equal(await registerFixtureApp(send, carol, 'news'), 204);
    assert.deepEqual(await listPublishers('news', server.container.trustedPublishing), []);
    await refused(
      await issuers.github.mint(githubClaims({ aud: AUDIENCE }), { now: clock.now() }),
      403,
      /No app on this store trusts/,
    );
  });
});
