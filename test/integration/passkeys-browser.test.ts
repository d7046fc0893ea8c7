import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { createUser } from '../helpers/accounts.ts';
import { BROWSER_SKIP, fillSignIn, launchBrowser, seriousViolations } from '../helpers/browser.ts';
import { freePort, startServeProcess } from '../helpers/serve-process.ts';
import type { ServeProcess } from '../helpers/serve-process.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';

const PASSWORD = 'violet harbour signal plum';

/**
 * Passkeys (issue 53 §4) in Chromium through its virtual authenticator (DevTools' WebAuthn
 * domain), against the store started as the README starts it, at a phone's width: a passkey is
 * added on the sign-in security page (recovery codes shown once), then signs in as the second
 * factor after the password. axe finds no serious problem on either page.
 */
describe(`passkeys in Chromium (${DIALECT})`, { skip: BROWSER_SKIP }, () => {
  let server: TestServer;
  let serve: ServeProcess;
  let browser: Browser;
  let origin: string;

  before(async () => {
    server = await createTestServer();
    await createUser(server.container, 'pat', PASSWORD);
    const port = await freePort();
    // WebAuthn needs a host name (not an address) as the relying party.
    origin = `http://localhost:${port}`;
    serve = await startServeProcess({
      ...server.database.env,
      APPSTORE_PORT: String(port),
      APPSTORE_PUBLIC_URL: origin,
    });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await serve?.stop();
    await server.close();
  });

  test('add a passkey, then sign in with the password and the passkey', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, bypassCSP: false });
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
    const after = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    assert.ok((after.credentials[0]?.signCount ?? 0) >= 1, 'the passkey signed');
    assert.deepEqual(problems, []);

    const events = (await server.container.audit.find({ user: 'pat', limit: 20 })).map((entry) => entry.event);
    assert.ok(events.includes('user.passkey_added'));
    assert.ok(events.includes('user.second_factor_sign_in'));
    await context.close();
  });

  test('axe finds no serious problem on the security and second-factor pages', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, bypassCSP: true });
    const tab = await context.newPage();
    await tab.goto(`${origin}/account/login?next=%2Faccount%2Fsecurity`);
    await fillSignIn(tab, 'pat', PASSWORD);
    await tab.waitForURL(`${origin}/account/login/second-factor`);
    const second = await seriousViolations(tab);
    assert.deepEqual(second.serious, [], second.all);
    await context.close();

    await createUser(server.container, 'quin', PASSWORD);
    const fresh = await browser.newContext({ viewport: { width: 390, height: 844 }, bypassCSP: true });
    const page = await fresh.newPage();
    await page.goto(`${origin}/account/login?next=%2Faccount%2Fsecurity`);
    await fillSignIn(page, 'quin', PASSWORD);
    await page.waitForURL(`${origin}/account/security`);
    await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
    await page.getByLabel('Code from the app').waitFor();
    const security = await seriousViolations(page);
    assert.deepEqual(security.serious, [], security.all);
    await fresh.close();
  });
});
