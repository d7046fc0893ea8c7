import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { createUser } from '../helpers/accounts.ts';
import { BROWSER_SKIP, fillSignIn, launchBrowser, seriousViolations } from '../helpers/browser.ts';
import { TEST_TLS_CA_FILE } from '../helpers/https-archive-server.ts';
import { startOidcProvider } from '../helpers/oidc-provider.ts';
import type { LocalOidcProvider } from '../helpers/oidc-provider.ts';
import { freePort, startServeProcess } from '../helpers/serve-process.ts';
import type { ServeProcess } from '../helpers/serve-process.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';

const PASSWORD = 'violet harbour signal plum';

/**
 * Signing in in Chromium, against the store started as the README starts it: external login
 * through the provider's own sign-in page, and passkeys (issue 53 §4) through Chromium's virtual
 * authenticator (DevTools' WebAuthn domain), at a phone's width. One store and one browser for
 * both: starting them is most of each test's time.
 */
describe(`signing in in Chromium: external login, passkeys (${DIALECT})`, { skip: BROWSER_SKIP }, () => {
  let idp: LocalOidcProvider;
  let server: TestServer;
  let serve: ServeProcess;
  let browser: Browser;
  let origin = '';
  const secrets = fs.mkdtempSync(path.join(os.tmpdir(), 'oidc-browser-'));

  before(async () => {
    const port = await freePort();
    // WebAuthn needs a host name (not an address) for its relying party.
    origin = `http://localhost:${port}`;
    idp = await startOidcProvider({ redirectUri: () => `${origin}/account/external/corp/callback` });
    idp.people.set('grace', {
      email: 'grace@corp.example',
      email_verified: true,
      preferred_username: 'grace',
      given_name: 'Grace',
      family_name: 'Hopper',
    });
    fs.writeFileSync(path.join(secrets, 'corp.secret'), idp.clientSecret);
    server = await createTestServer();
    await createUser(server.container, 'pat', PASSWORD);
    serve = await startServeProcess({
      ...server.database.env,
      APPSTORE_PORT: String(port),
      APPSTORE_PUBLIC_URL: origin,
      APPSTORE_OIDC_PROVIDERS: 'corp',
      APPSTORE_OIDC_CORP_ISSUER: idp.issuer,
      APPSTORE_OIDC_CORP_CLIENT_ID: idp.clientId,
      APPSTORE_OIDC_CORP_CLIENT_SECRET_FILE: path.join(secrets, 'corp.secret'),
      APPSTORE_OIDC_CORP_NAME: 'Corp ID',
      // The bundle reaches the provider over HTTPS with the test CA, as an operator's private CA would be given.
      NODE_EXTRA_CA_CERTS: TEST_TLS_CA_FILE,
    });
    assert.equal(serve.url, origin.replace('localhost', '127.0.0.1'));
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    assert.equal(await serve?.stop(), 0, serve?.output());
    await server?.close();
    await idp?.close();
    fs.rmSync(secrets, { recursive: true, force: true });
  });

  test('sign in with the provider: its page, back to a new password-less account; the token; sign out and in again', async () => {
    // The provider's pages are served with the test CA's certificate: the browser is told to accept it.
    const context = await browser.newContext({
      viewport: { width: 390, height: 844 },
      ignoreHTTPSErrors: true,
      bypassCSP: true,
    });
    const tab = await context.newPage();
    const problems: string[] = [];
    tab.on('pageerror', (error) => problems.push(error.message));

    await tab.goto(`${origin}/account/login`);
    const axe = await seriousViolations(tab);
    assert.deepEqual(axe.serious, [], axe.all);
    await tab.getByRole('link', { name: 'Sign in with Corp ID' }).click();

    // The provider's own sign-in page.
    await tab.waitForURL(new RegExp(`^${idp.issuer}/interaction/`));
    await tab.getByPlaceholder('Enter any login').fill('grace');
    await tab.getByPlaceholder('and password').fill('whatever the provider asks');
    await tab.getByRole('button', { name: 'Sign-in' }).click();

    // Back on the store: a new account, welcomed on its page.
    await tab.waitForURL(`${origin}/account?welcome=corp`);
    await tab.getByText('Welcome! Your account was created with Corp ID').waitFor();
    await tab.getByText('Signed in as grace').waitFor();
    await tab.getByText('connected as grace').waitFor();
    assert.equal(
      await tab.getByLabel('Current password').count(),
      0,
      'no current password is asked of an account without one',
    );
    assert.deepEqual((await seriousViolations(tab)).serious, []);
    assert.ok(
      await tab.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
      'no horizontal scrolling at phone width',
    );
    await tab.getByRole('button', { name: 'Show my token' }).click();
    const token = await tab.getByLabel('Your API token').inputValue();
    assert.match(token, /^[0-9a-f]{64}$/);
    const me = await fetch(`${origin}/api/v1/apps.json`, { headers: { authorization: `Token ${token}` } });
    assert.equal(me.status, 200);

    // Signed out, then in again: the provider remembers the person, the store the account.
    await tab.getByRole('button', { name: 'Sign out' }).click();
    await tab.goto(`${origin}/account/login?next=%2Fdeveloper`);
    await tab.getByRole('link', { name: 'Sign in with Corp ID' }).click();
    await tab.waitForURL(`${origin}/developer`);
    await tab
      .getByRole('heading', { name: /Your apps|My apps/ })
      .first()
      .waitFor();
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('passkeys: add one, then sign in with the password and the passkey', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const tab = await context.newPage();
    const problems: string[] = [];
    tab.on('pageerror', (error) => problems.push(error.message));
    const cdp = await context.newCDPSession(tab);
    await cdp.send('WebAuthn.enable');
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });

    await tab.goto(`${origin}/account/login?next=%2Faccount%2Fsecurity`);
    await fillSignIn(tab, 'pat', PASSWORD);
    await tab.waitForURL(`${origin}/account/security`);
    await tab.getByLabel('Name of the new passkey').fill('Test phone');
    await tab.locator('#passkey-add-current_password').fill(PASSWORD);
    await tab.getByRole('button', { name: 'Add a passkey' }).click();
    await tab.getByText('The passkey was added').waitFor();
    assert.equal(await tab.locator('.recovery-codes li').count(), 10);
    assert.match(await tab.locator('main').innerText(), /Test phone/);
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    assert.equal(credentials.length, 1);

    await tab.getByRole('button', { name: 'Sign out' }).click();
    await tab.goto(`${origin}/account/login?next=%2Faccount`);
    await fillSignIn(tab, 'pat', PASSWORD);
    await tab.waitForURL(`${origin}/account/login/second-factor`);
    await tab.getByRole('button', { name: 'Use a passkey' }).click();
    await tab.waitForURL(`${origin}/account`);
    assert.match(await tab.locator('main').innerText(), /Signed in as pat/i);
    const used = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    assert.ok((used.credentials[0]?.signCount ?? 0) >= 1, 'the passkey signed');
    assert.deepEqual(problems, []);
    const events = (await server.container.audit.find({ user: 'pat', limit: 20 })).map((entry) => entry.event);
    assert.ok(events.includes('user.passkey_added'));
    assert.ok(events.includes('user.second_factor_sign_in'));
    await context.close();
  });

  test('axe finds no serious problem on the second-factor and security pages', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, bypassCSP: true });
    const tab = await context.newPage();
    await tab.goto(`${origin}/account/login?next=%2Faccount%2Fsecurity`);
    await fillSignIn(tab, 'pat', PASSWORD);
    await tab.waitForURL(`${origin}/account/login/second-factor`);
    const second = await seriousViolations(tab);
    assert.deepEqual(second.serious, [], second.all);

    await createUser(server.container, 'quin', PASSWORD);
    await tab.goto(`${origin}/account/login?next=%2Faccount%2Fsecurity`);
    await fillSignIn(tab, 'quin', PASSWORD);
    await tab.waitForURL(`${origin}/account/security`);
    await tab.getByRole('button', { name: 'Set up an authenticator app' }).click();
    await tab.getByLabel('Code from the app').waitFor();
    const security = await seriousViolations(tab);
    assert.deepEqual(security.serious, [], security.all);
    await context.close();
  });
});
