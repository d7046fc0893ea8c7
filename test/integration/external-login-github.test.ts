import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, beforeEach, describe, test } from 'node:test';
import { createUser } from '../helpers/accounts.ts';
import { startGithubStandIn } from '../helpers/github-standin.ts';
import type { GithubPerson, GithubStandIn } from '../helpers/github-standin.ts';
import { TEST_TLS_CA } from '../helpers/https-archive-server.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';
import { WebClient } from '../helpers/web-client.ts';

const PUBLIC_URL = 'https://apps.example.test';
const OCTOCAT: GithubPerson = {
  id: 583231,
  login: 'octocat',
  name: 'The Octocat',
  emails: [
    { email: 'octocat@github.example', primary: true, verified: true, visibility: 'public' },
    { email: 'other@elsewhere.example', primary: false, verified: true, visibility: null },
  ],
};

describe(`external login with the GitHub preset, against a stand-in (${DIALECT})`, () => {
  let github: GithubStandIn;
  let server: TestServer;
  let secretDir: string;

  before(async () => {
    github = await startGithubStandIn();
    secretDir = fs.mkdtempSync(path.join(os.tmpdir(), 'github-secret-'));
    fs.writeFileSync(path.join(secretDir, 'github.secret'), github.clientSecret);
  });
  after(async () => {
    await server.close();
    await github.close();
    fs.rmSync(secretDir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    await server?.close();
    github.signedIn = OCTOCAT;
    server = await createTestServer({
      env: {
        APPSTORE_PUBLIC_URL: PUBLIC_URL,
        APPSTORE_GITHUB_CLIENT_ID: github.clientId,
        APPSTORE_GITHUB_CLIENT_SECRET_FILE: path.join(secretDir, 'github.secret'),
        // GitHub Enterprise Server's layout: the API at {URL}/api/v3, derived when not given.
        APPSTORE_GITHUB_URL: github.origin,
      },
      downloadCa: [TEST_TLS_CA],
    });
  });

  const callbackPath = (url: URL): string => {
    assert.equal(`${url.origin}${url.pathname}`, `${PUBLIC_URL}/account/external/github/callback`);
    return `${url.pathname}${url.search}`;
  };

  async function authorized(web: WebClient): Promise<URL> {
    const started = await web.get('/account/external/github/start');
    assert.equal(started.statusCode, 303, started.body);
    const location = new URL(String(started.headers.location));
    assert.equal(`${location.origin}${location.pathname}`, `${github.origin}/login/oauth/authorize`);
    assert.equal(location.searchParams.get('scope'), 'read:user user:email');
    assert.equal(location.searchParams.get('code_challenge_method'), 'S256');
    return github.authorize(location.href);
  }

  const signIn = async (web: WebClient) => web.get(callbackPath(await authorized(web)));

  test('the first sign-in takes the GitHub login, the verified primary address and the name; the next finds the account, renamed or not', async () => {
    const web = new WebClient(server.app);
    assert.match((await web.get('/account/login')).body, />Sign in with GitHub</);
    const answer = await signIn(web);
    assert.equal(answer.statusCode, 303, answer.body);
    assert.equal(answer.headers.location, '/account?welcome=github');
    assert.ok(
      (github.lastTokenRequest?.get('code_verifier') ?? '').length >= 43,
      'the PKCE verifier reached the token endpoint',
    );
    const user = await server.container.accounts.store.findUserByUsername('octocat');
    assert.equal(user?.email, 'octocat@github.example');
    assert.equal(user?.emailVerified, true);
    assert.equal(user?.hasPassword, false);
    assert.deepEqual([user?.firstName, user?.lastName], ['The', 'Octocat']);
    assert.match((await web.get('/account')).body, /GitHub<\/strong>: connected as octocat/);

    // A renamed GitHub account is the same person (its numeric id).
    github.signedIn = { ...OCTOCAT, login: 'octocat-renamed' };
    const other = new WebClient(server.app);
    assert.equal((await signIn(other)).headers.location, '/');
    const page = (await other.get('/account')).body;
    assert.match(page, /Signed in as octocat</);
    assert.match(page, /GitHub<\/strong>: connected as octocat-renamed/);
    assert.equal((await server.container.accounts.store.listUsers()).length, 1);
  });

  test('a login taken here gives a clear choice; an unverified primary address is not taken', async () => {
    await createUser(server.container, 'octocat', 'a password of the local octocat');
    github.signedIn = {
      ...OCTOCAT,
      emails: [{ email: 'octocat@github.example', primary: true, verified: false, visibility: 'public' }],
    };
    const web = new WebClient(server.app);
    assert.equal((await signIn(web)).headers.location, '/account/external/username');
    const choice = await web.get('/account/external/username');
    assert.match(choice.body, /You are signed in with GitHub, but the name octocat is taken here/);
    const created = await web.post('/account/external/username', { username: 'octocat-gh' });
    assert.equal(created.statusCode, 303, created.body);
    const user = await server.container.accounts.store.findUserByUsername('octocat-gh');
    assert.equal(user?.email, null);
  });

  test('GitHub refusing the code (its 200 with an error) is a page that says so; nothing is created', async () => {
    const web = new WebClient(server.app);
    const back = await authorized(web);
    back.searchParams.set('code', 'a-code-github-never-gave');
    const answer = await web.get(callbackPath(back));
    assert.equal(answer.statusCode, 400);
    assert.match(
      answer.body,
      /GitHub refused the sign-in \(it answered &quot;bad_verification_code: The code passed is incorrect or expired.&quot;\)/,
    );
    assert.equal((await server.container.accounts.store.listUsers()).length, 0);
  });
});
