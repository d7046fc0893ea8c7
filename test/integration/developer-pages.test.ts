import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { importCategories, importPlatformReleases } from '../../src/domain/catalog/import-catalog.ts';
import { userActing } from '../../src/domain/audit/audit.ts';
import { requestCertificate } from '../../src/domain/identity/request-certificate.ts';
import { createUser } from '../helpers/accounts.ts';
import { TEST_ACTING } from '../helpers/acting.ts';
import { appArchive, buildArchive, manifestXml } from '../helpers/app-archive.ts';
import { BROWSER_SKIP, fillSignIn, launchBrowser, seriousViolations } from '../helpers/browser.ts';
import { TEST_TLS_CA_FILE, startArchiveServer } from '../helpers/https-archive-server.ts';
import type { ArchiveServer } from '../helpers/https-archive-server.ts';
import { startMailServer } from '../helpers/mail-server.ts';
import type { MailServer } from '../helpers/mail-server.ts';
import { startServeProcess } from '../helpers/serve-process.ts';
import type { ServeProcess } from '../helpers/serve-process.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';

/** Runs a command the page shows, as its reader would paste it into a shell, in `dir`. */
function runShown(command: string, dir: string): string {
  return execFileSync('bash', ['-c', command], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** The text of the command block after the heading `heading`. */
async function shownCommand(tab: Page, label: string): Promise<string> {
  return (await tab.getByLabel(label, { exact: true }).textContent())?.trim() ?? '';
}

describe(`the developer pages, end to end in Chromium (${DIALECT})`, { skip: BROWSER_SKIP }, () => {
  let server: TestServer;
  let files: ArchiveServer;
  let mail: MailServer;
  let serve: ServeProcess;
  let browser: Browser;
  let origin = '';
  const keys = fs.mkdtempSync(path.join(os.tmpdir(), 'appstore-dev-keys-'));

  before(async () => {
    files = await startArchiveServer();
    mail = await startMailServer();
    // The store's own authority (no APPSTORE_CA_CERT): it issues certificates from the page.
    server = await createTestServer();
    await importPlatformReleases(['32.0.1', '31.0.4'].map((version) => ({ version, hasRelease: true, isSupported: true })), TEST_ACTING, server.container.catalog);
    await importCategories(['multimedia', 'tools'].map((id) => ({ id, translations: { en: { name: id, description: '' } } })), TEST_ACTING, server.container.catalog);
    await createUser(server.container, 'carl', 'copper kettle autumn ridge');
    await createUser(server.container, 'tess', 'silver canyon orchard mist');
    serve = await startServeProcess({ ...server.database.env, APPSTORE_SMTP_URL: mail.url, APPSTORE_DOWNLOAD_ALLOW_PRIVATE: '1', NODE_EXTRA_CA_CERTS: TEST_TLS_CA_FILE });
    origin = serve.url;
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    assert.equal(await serve?.stop(), 0, serve?.output());
    await server?.close();
    await files?.close();
    await mail?.close();
    fs.rmSync(keys, { recursive: true, force: true });
  });

  const signedIn = async (username: string, password: string, viewport = { width: 1280, height: 900 }) => {
    const context = await browser.newContext({ viewport });
    const tab = await context.newPage();
    await tab.goto(`${origin}/account/login?next=%2Fdeveloper`);
    await fillSignIn(tab, username, password);
    await tab.waitForURL(`${origin}/developer`);
    return { context, tab };
  };

  /** Serves an archive of `version`, signs it with the command the publish page shows, and publishes it there. */
  const publishThroughPage = async (tab: Page, appId: string, version: string): Promise<void> => {
    const archive = path.join(keys, `${appId}.tar.gz`);
    fs.writeFileSync(archive, await appArchive({ id: appId, version, name: 'Dora Notes' }));
    files.serve(`/${appId}-${version}.tar.gz`, fs.readFileSync(archive));
    await tab.goto(`${origin}/developer/publish`);
    const command = (await shownCommand(tab, '1. Sign the archive with your key')).replace(/APP/g, appId);
    const signature = runShown(command, keys);
    await tab.getByLabel('Download address (HTTPS)').fill(`${files.origin}/${appId}-${version}.tar.gz`);
    await tab.getByLabel('Signature of the archive (base64)').fill(signature);
    await tab.getByRole('button', { name: 'Publish' }).click();
    await tab.waitForURL(/\/developer\/publish\/[A-Za-z0-9_-]+$/);
    await tab.getByText(`: ${appId} ${version}.`).waitFor({ timeout: 30_000 });
  };

  const listed = async (appId: string): Promise<string[]> => {
    const apps = (await (await fetch(`${origin}/api/v1/apps.json`)).json()) as Array<{ id: string; releases: Array<{ version: string }> }>;
    return apps.find((a) => a.id === appId)?.releases.map((r) => r.version).sort() ?? [];
  };

  test('sign up, get a certificate, register, publish, co-maintain, transfer, delete a release and the app', async () => {
    const password = 'lunar pebble harvest violin';
    const appId = 'dora_notes';
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const tab = await context.newPage();
    const problems: string[] = [];
    tab.on('pageerror', (error) => problems.push(error.message));

    // A new user signs up and confirms the address.
    await tab.goto(`${origin}/account/signup`);
    await tab.getByLabel('Username').fill('dora');
    await tab.getByLabel('E-mail address').fill('dora@example.org');
    await tab.getByLabel('Password').fill(password);
    await tab.getByRole('button', { name: 'Sign up' }).last().click();
    await tab.getByRole('heading', { name: 'Check your inbox' }).waitFor();
    const link = (await mail.nextMailTo('dora@example.org')).links[0] ?? '';
    await tab.goto(`${origin}${new URL(link).pathname}`);
    await tab.getByRole('button', { name: 'Confirm my address' }).click();
    await tab.goto(`${origin}/account/login?next=%2Fdeveloper`);
    await fillSignIn(tab, 'dora', password);
    await tab.waitForURL(`${origin}/developer`);
    await tab.getByText('You do not own or co-maintain any app yet').waitFor();

    // A certificate from the store's authority: the key and CSR made with the page's command.
    await tab.getByRole('link', { name: 'Get a certificate' }).first().click();
    await tab.getByLabel('Your app id').fill(appId);
    await tab.getByRole('button', { name: 'Fill in the commands' }).click();
    runShown(await shownCommand(tab, '1. On your machine, make the key and the request'), keys);
    assert.ok(fs.existsSync(path.join(keys, `${appId}.key`)), 'the page’s command made the key');
    await tab.getByLabel('Certificate request (the whole .csr file)').fill(fs.readFileSync(path.join(keys, `${appId}.csr`), 'utf8'));
    await tab.getByRole('button', { name: 'Request the certificate' }).click();
    await tab.getByRole('heading', { name: `Your certificate for ${appId}` }).waitFor();
    const certificate = (await tab.locator('pre.pem').textContent()) ?? '';
    assert.match(certificate, /BEGIN CERTIFICATE/);
    fs.writeFileSync(path.join(keys, `${appId}.crt`), certificate);
    assert.match(execFileSync('openssl', ['x509', '-noout', '-subject', '-in', path.join(keys, `${appId}.crt`)], { encoding: 'utf8' }), new RegExp(`CN ?= ?${appId}`));

    // Register: the certificate comes with the link; the signature from the page's command.
    await tab.getByRole('link', { name: 'Register the app with it' }).first().click();
    assert.match(await tab.getByLabel('Certificate (PEM)').inputValue(), /BEGIN CERTIFICATE/);
    await tab.getByLabel('Signature of the app id (base64)').fill('bm90IGEgc2lnbmF0dXJl');
    await tab.getByRole('button', { name: 'Register' }).click();
    // A wrong signature is refused next to its field, and the form keeps what was typed.
    await tab.locator('#field-signature-error').waitFor();
    assert.match((await tab.locator('#field-signature-error').textContent()) ?? '', /signature does not match/);
    await tab.getByLabel('Signature of the app id (base64)').fill(runShown(await shownCommand(tab, '1. Sign the app id with your key'), keys));
    await tab.getByRole('button', { name: 'Register' }).click();
    await tab.getByText(`${appId} is registered to you`).waitFor();

    // Publish, then see it on the public page and in apps.json.
    await publishThroughPage(tab, appId, '1.0.0');
    await tab.getByRole('link', { name: 'See the app page' }).click();
    await tab.getByRole('heading', { name: 'Dora Notes', level: 1 }).waitFor();
    assert.deepEqual(await listed(appId), ['1.0.0']);

    // A co-maintainer, who publishes the second release.
    await tab.goto(`${origin}/developer/apps/${appId}`);
    await tab.getByLabel('Username').fill('nobody_here');
    await tab.getByRole('button', { name: 'Add' }).click();
    await tab.locator('#maintainer-username-error').waitFor();
    await tab.getByLabel('Username').fill('carl');
    await tab.getByRole('button', { name: 'Add' }).click();
    await tab.getByText('carl co-maintains the app now.').waitFor();
    const carl = await signedIn('carl', 'copper kettle autumn ridge');
    await carl.tab.getByRole('link', { name: 'Dora Notes' }).waitFor();
    await publishThroughPage(carl.tab, appId, '1.1.0');
    assert.deepEqual(await listed(appId), ['1.0.0', '1.1.0']);
    // A co-maintainer cannot delete the app nor unlock it: the page does not offer it, the use case refuses it.
    await carl.tab.goto(`${origin}/developer/apps/${appId}`);
    assert.equal(await carl.tab.getByRole('button', { name: 'Delete the app' }).count(), 0);
    await carl.context.close();

    // Transfer: dora unlocks, tess registers with the certificate dora hands over.
    await tab.goto(`${origin}/developer/apps/${appId}`);
    await tab.getByRole('button', { name: 'Unlock for transfer' }).click();
    await tab.getByText('The app is unlocked for transfer.').first().waitFor();
    const tess = await signedIn('tess', 'silver canyon orchard mist');
    await tess.tab.goto(`${origin}/developer/register?app=${appId}`);
    await tess.tab.getByLabel('Certificate (PEM)').fill(certificate);
    await tess.tab.getByLabel('Signature of the app id (base64)').fill(runShown(await shownCommand(tess.tab, '1. Sign the app id with your key'), keys));
    await tess.tab.getByRole('button', { name: 'Register' }).click();
    await tess.tab.getByText(`The certificate of ${appId} is updated.`).waitFor();
    await tess.tab.goto(`${origin}/developer/apps/${appId}`);
    await tess.tab.getByText('Your role: owner.').waitFor();
    // dora no longer manages it.
    const refused = await tab.goto(`${origin}/developer/apps/${appId}`);
    assert.equal(refused?.status(), 403);

    // tess deletes a release, then the app (typing its id).
    await tess.tab.getByRole('button', { name: 'Delete 1.0.0' }).click();
    await tess.tab.getByText('Release 1.0.0 was deleted.').waitFor();
    assert.deepEqual(await listed(appId), ['1.1.0']);
    await tess.tab.getByLabel(`Type ${appId} to confirm`).fill('dora_note');
    await tess.tab.getByRole('button', { name: 'Delete the app' }).click();
    await tess.tab.locator('#delete-confirm-error').waitFor();
    await tess.tab.getByLabel(`Type ${appId} to confirm`).fill(appId);
    await tess.tab.getByRole('button', { name: 'Delete the app' }).click();
    await tess.tab.waitForURL(`${origin}/developer`);
    assert.deepEqual(await listed(appId), []);
    assert.equal((await fetch(`${origin}/apps/${appId}`, { headers: { accept: 'text/html' } })).status, 404);

    // The app's audit trail named every step, before it went.
    const trail = (await server.container.audit.find({ appId, limit: 50 })).map((r) => `${r.event} ${r.actor.name}`);
    for (const step of ['certificate.issued dora', 'app.registered dora', 'release.published dora', 'app.co_maintainer_added dora', 'release.published carl', 'app.transfer_unlocked dora', 'app.transferred tess', 'release.deleted tess', 'app.deleted tess']) {
      assert.ok(trail.includes(step), `${step} in ${trail.join(', ')}`);
    }
    await tess.context.close();
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('a 20 MB archive from a slow host: the job page says it is working, refreshes itself, then shows the result', async (t) => {
    const appId = 'slow_big';
    const sam = await createUser(server.container, 'sam', 'harbor lantern meadow quartz');
    runShown(`openssl req -new -newkey rsa:2048 -nodes -keyout ${appId}.key -subj /CN=${appId} -out ${appId}.csr`, keys);
    const issued = await requestCertificate(fs.readFileSync(path.join(keys, `${appId}.csr`), 'utf8'), sam, userActing(sam, null, null), server.container.certificateRequests);
    const certificate = issued.status === 'issued' ? issued.certificate : assert.fail('the store’s authority issues at once');
    const auth = { authorization: `Basic ${Buffer.from('sam:harbor lantern meadow quartz').toString('base64')}`, 'content-type': 'application/json' };
    const idSignature = runShown(`printf '%s' ${appId} | openssl dgst -sha512 -sign ${appId}.key | openssl base64`, keys);
    assert.equal((await fetch(`${origin}/api/v1/apps`, { method: 'POST', headers: auth, body: JSON.stringify({ certificate, signature: idSignature }) })).status, 201);

    // 20,000,000 bytes that do not compress, trickled out in 512 KiB steps every 150 ms (about 6 s).
    const bytes = await buildArchive({ [`${appId}/appinfo/info.xml`]: manifestXml({ id: appId, version: '1.0.0', name: 'Slow Big' }), [`${appId}/data.bin`]: randomBytes(20_000_000 - 4096) });
    assert.ok(bytes.length >= 19_500_000 && bytes.length <= 20 * 1024 * 1024, `archive of ${bytes.length} bytes`);
    fs.writeFileSync(path.join(keys, `${appId}.tar.gz`), bytes);
    let sent = 0;
    files.handle(`/${appId}.tar.gz`, (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/gzip', 'content-length': bytes.length });
      const step = 512 * 1024;
      const timer = setInterval(() => {
        const chunk = bytes.subarray(sent, sent + step);
        sent += chunk.length;
        if (sent >= bytes.length) {
          clearInterval(timer);
          response.end(chunk);
        } else response.write(chunk);
      }, 150);
      response.on('close', () => clearInterval(timer));
    });
    const archiveSignature = runShown(`openssl dgst -sha512 -sign ${appId}.key ${appId}.tar.gz | openssl base64`, keys);

    const { context, tab } = await signedIn('sam', 'harbor lantern meadow quartz');
    const loads: number[] = [];
    tab.on('load', () => loads.push(sent));
    await tab.goto(`${origin}/developer/publish`);
    await tab.getByLabel('Download address (HTTPS)').fill(`${files.origin}/${appId}.tar.gz`);
    await tab.getByLabel('Signature of the archive (base64)').fill(archiveSignature);
    const started = Date.now();
    await tab.getByRole('button', { name: 'Publish' }).click();
    // The form answers at once with the job's page, which says it is working while the bytes trickle in.
    await tab.waitForURL(/\/developer\/publish\/[A-Za-z0-9_-]+$/);
    const answered = Date.now() - started;
    assert.ok(sent < bytes.length, 'the job page came before the download ended');
    await tab.getByText('The store is downloading and checking the archive.').waitFor();
    const loadsBefore = loads.length;
    await tab.getByText(`Published: ${appId} 1.0.0.`).waitFor({ timeout: 90_000 });
    const took = Date.now() - started;
    // The page reloaded itself (meta refresh, no script) while the download ran.
    assert.ok(loads.length - loadsBefore >= 2, `the page refreshed ${loads.length - loadsBefore} times`);
    assert.ok(loads.some((at) => at > 0 && at < bytes.length), 'a refresh came mid-download');
    const listedRelease = ((await (await fetch(`${origin}/api/v1/apps.json`)).json()) as Array<{ id: string; releases: Array<{ version: string }> }>).find((a) => a.id === appId);
    assert.deepEqual(listedRelease?.releases.map((r) => r.version), ['1.0.0']);
    t.diagnostic(`20 MB slow publish: job page after ${answered} ms, published after ${took} ms, ${loads.length - loadsBefore} refreshes`);
    await context.close();
  });

  test('an administrator disables a user, features an app, edits a category, revokes a certificate and reads the audit log', async () => {
    const appId = 'mal_app';
    const mallory = await createUser(server.container, 'mallory', 'granite puzzle willow sunrise');
    await createUser(server.container, 'ada', 'marble falcon tundra violet', { isAdmin: true });
    // mallory's app, made through the API with a certificate from the store's authority.
    runShown(`openssl req -new -newkey rsa:2048 -nodes -keyout ${appId}.key -subj /CN=${appId} -out ${appId}.csr`, keys);
    const issued = await requestCertificate(fs.readFileSync(path.join(keys, `${appId}.csr`), 'utf8'), mallory, userActing(mallory, null, null), server.container.certificateRequests);
    assert.equal(issued.status, 'issued');
    const certificate = issued.status === 'issued' ? issued.certificate : '';
    fs.writeFileSync(path.join(keys, `${appId}.crt`), certificate);
    const auth = { authorization: `Basic ${Buffer.from('mallory:granite puzzle willow sunrise').toString('base64')}`, 'content-type': 'application/json' };
    const signature = runShown(`printf '%s' ${appId} | openssl dgst -sha512 -sign ${appId}.key | openssl base64`, keys);
    assert.equal((await fetch(`${origin}/api/v1/apps`, { method: 'POST', headers: auth, body: JSON.stringify({ certificate, signature }) })).status, 201);
    const publish = async (version: string) => {
      const bytes = await appArchive({ id: appId, version, name: 'Mallory App' });
      fs.writeFileSync(path.join(keys, `${appId}.tar.gz`), bytes);
      files.serve(`/${appId}-${version}.tar.gz`, bytes);
      const archiveSignature = runShown(`openssl dgst -sha512 -sign ${appId}.key ${appId}.tar.gz | openssl base64`, keys);
      return fetch(`${origin}/api/v1/apps/releases`, { method: 'POST', headers: auth, body: JSON.stringify({ download: `${files.origin}/${appId}-${version}.tar.gz`, signature: archiveSignature }) });
    };
    assert.equal((await publish('1.0.0')).status, 201);

    const { context, tab } = await signedIn('ada', 'marble falcon tundra violet');
    await tab.getByRole('link', { name: 'Administration' }).click();
    await tab.getByRole('heading', { name: 'Administration', level: 1 }).waitFor();

    // Featured: the home page and apps.json change.
    await tab.getByRole('link', { name: 'Apps', exact: true }).last().click();
    await tab.getByRole('link', { name: appId }).click();
    await tab.getByLabel('Featured').check();
    await tab.getByRole('button', { name: 'Save' }).click();
    await tab.getByText('The settings were saved.').waitFor();
    const apps = (await (await fetch(`${origin}/api/v1/apps.json`)).json()) as Array<{ id: string; isFeatured: boolean }>;
    assert.equal(apps.find((a) => a.id === appId)?.isFeatured, true);
    await tab.goto(`${origin}/`);
    assert.ok((await tab.locator('section', { has: tab.getByRole('heading', { name: 'Featured apps' }) }).textContent())?.includes('Mallory App'));

    // A category's text.
    await tab.goto(`${origin}/admin/categories`);
    await tab.getByLabel('Category id').fill('multimedia');
    await tab.getByLabel('Name', { exact: true }).fill('Media & Music');
    await tab.getByRole('button', { name: 'Save the category' }).click();
    await tab.getByText('Category multimedia saved.').waitFor();
    const categories = (await (await fetch(`${origin}/api/v1/categories.json`)).json()) as Array<{ id: string; translations: Record<string, { name: string }> }>;
    assert.equal(categories.find((c) => c.id === 'multimedia')?.translations['en']?.name, 'Media & Music');

    // Revoke mallory's certificate by its serial: the next publish is refused with the reason.
    const serial = runShown(`openssl x509 -noout -serial -in ${appId}.crt`, keys).trim().replace(/^serial=/, '');
    await tab.goto(`${origin}/admin/certificates`);
    await tab.getByLabel('Serial number (hexadecimal)').fill(serial);
    await tab.getByLabel('Reason (kept in the record)').fill('key leaked');
    await tab.getByRole('button', { name: 'Revoke' }).click();
    await tab.getByText(`Revoked: certificate`).waitFor();
    const refused = await publish('1.1.0');
    assert.equal(refused.status, 400);
    const problem = (await refused.json()) as { code: string; detail: string };
    assert.equal(problem.code, 'certificate_revoked', problem.detail);

    // Disable mallory: her password stops working at once.
    await tab.goto(`${origin}/admin/users?q=mall`);
    await tab.getByRole('button', { name: 'Disable mallory' }).click();
    await tab.getByText('mallory is disabled').waitFor();
    assert.equal((await fetch(`${origin}/api/v1/token/new`, { method: 'POST', headers: auth })).status, 401);

    // The audit log, filtered, tells all of it, with ada's name.
    await tab.goto(`${origin}/admin/audit`);
    await tab.getByLabel('User (acting or concerned)').fill('ada');
    await tab.getByRole('button', { name: 'Filter' }).click();
    const log = (await tab.locator('table.data tbody').textContent()) ?? '';
    for (const event of ['app.flags_changed', 'categories.imported', 'certificate.revoked']) assert.ok(log.includes(event), `${event} in ${log}`);
    await tab.goto(`${origin}/admin/audit?user=mallory&event=user.`);
    assert.ok(((await tab.locator('table.data tbody').textContent()) ?? '').includes('user.disabled'));
    await context.close();
  });

  test('no serious or critical accessibility violation (axe-core) on any developer or admin page kind, nor overflow on a phone', async () => {
    const context = await browser.newContext({ bypassCSP: true, viewport: { width: 375, height: 740 } });
    const tab = await context.newPage();
    await tab.goto(`${origin}/account/login?next=%2Fdeveloper`);
    await fillSignIn(tab, 'ada', 'marble falcon tundra violet');
    await tab.waitForURL(`${origin}/developer`);
    // A publish refused at once (nothing listens there): its page is a page kind too.
    await tab.goto(`${origin}/developer/publish`);
    await tab.getByLabel('Download address (HTTPS)').fill('https://127.0.0.1:1/nothing.tar.gz');
    await tab.getByLabel('Signature of the archive (base64)').fill('c2lnbmF0dXJl');
    await tab.getByRole('button', { name: 'Publish' }).click();
    await tab.getByText('The release was refused; nothing was saved.').waitFor({ timeout: 30_000 });
    const job = new URL(tab.url()).pathname;
    for (const url of ['/developer', '/developer/certificates?app=mal_app', '/developer/register', '/developer/publish', job, '/developer/apps/mal_app', '/admin', '/admin/users', '/admin/apps', '/admin/categories', '/admin/platforms', '/admin/discover', '/admin/certificates', '/admin/audit']) {
      await tab.goto(`${origin}${url}`);
      const { serious, all } = await seriousViolations(tab);
      assert.deepEqual(serious, [], `${url}: ${all}`);
      const overflow = await tab.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 0, `${url} is wider than the phone by ${overflow}px`);
    }
    await context.close();
  });
});
