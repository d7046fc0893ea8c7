import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BROWSER_SKIP, fillSignIn } from '../helpers/browser.ts';
import { startDeveloperStore, runShown, shownCommand } from '../helpers/developer-store.ts';
import type { DeveloperStore } from '../helpers/developer-store.ts';
import { appArchive } from '../helpers/app-archive.ts';
import { DIALECT } from '../helpers/test-database.ts';

/** A developer's whole way through the pages, as a person would go it (the admin pages and the slow publish have files of their own). */
describe(`the developer pages, end to end in Chromium (${DIALECT})`, { skip: BROWSER_SKIP }, () => {
  let store: DeveloperStore;
  before(async () => {
    store = await startDeveloperStore();
  });
  after(() => store?.close());

  test('sign up, get a certificate, register, publish, co-maintain, transfer, delete a release and the app', async () => {
    const { server, mail, browser, origin, keys, signedIn, publishThroughPage, listed } = store;
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
    await tab
      .getByLabel('Certificate request (the whole .csr file)')
      .fill(fs.readFileSync(path.join(keys, `${appId}.csr`), 'utf8'));
    await tab.getByRole('button', { name: 'Request the certificate' }).click();
    await tab.getByRole('heading', { name: `Your certificate for ${appId}` }).waitFor();
    const certificate = (await tab.locator('pre.pem').textContent()) ?? '';
    assert.match(certificate, /BEGIN CERTIFICATE/);
    fs.writeFileSync(path.join(keys, `${appId}.crt`), certificate);
    assert.match(
      execFileSync('openssl', ['x509', '-noout', '-subject', '-in', path.join(keys, `${appId}.crt`)], {
        encoding: 'utf8',
      }),
      new RegExp(`CN ?= ?${appId}`),
    );

    // Register: the certificate comes with the link; the signature from the page's command.
    await tab.getByRole('link', { name: 'Register the app with it' }).first().click();
    assert.match(await tab.getByLabel('Certificate (PEM)').inputValue(), /BEGIN CERTIFICATE/);
    await tab.getByLabel('Signature of the app id (base64)').fill('bm90IGEgc2lnbmF0dXJl');
    await tab.getByRole('button', { name: 'Register' }).click();
    // A wrong signature is refused next to its field, and the form keeps what was typed.
    await tab.locator('#field-signature-error').waitFor();
    assert.match((await tab.locator('#field-signature-error').textContent()) ?? '', /signature does not match/);
    await tab
      .getByLabel('Signature of the app id (base64)')
      .fill(runShown(await shownCommand(tab, '1. Sign the app id with your key'), keys));
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
    await tess.tab
      .getByLabel('Signature of the app id (base64)')
      .fill(runShown(await shownCommand(tess.tab, '1. Sign the app id with your key'), keys));
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
    for (const step of [
      'certificate.issued dora',
      'app.registered dora',
      'release.published dora',
      'app.co_maintainer_added dora',
      'release.published carl',
      'app.transfer_unlocked dora',
      'app.transferred tess',
      'release.deleted tess',
      'app.deleted tess',
    ]) {
      assert.ok(trail.includes(step), `${step} in ${trail.join(', ')}`);
    }
    await tess.context.close();
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('publish by uploading the file on the publish page: the job page says so; a wrong signature is refused there', async () => {
    const { keys, signedIn, registerThroughApi, listed, origin } = store;
    const appId = 'upload_notes';
    await registerThroughApi('uma', 'quiet harbour lantern moss', appId);
    const { context, tab } = await signedIn('uma', 'quiet harbour lantern moss', { width: 390, height: 844 });
    const archive = path.join(keys, `${appId}.tar.gz`);
    fs.writeFileSync(archive, await appArchive({ id: appId, version: '2.0.0', name: 'Upload Notes' }));
    await tab.goto(`${origin}/developer/publish?app=${appId}`);
    const signature = runShown(await shownCommand(tab, '1. Sign the archive with your key'), keys);
    const upload = tab.locator('form[action="/developer/publish/upload"]');
    await upload.getByLabel('Archive (.tar.gz)').setInputFiles(archive);
    await upload.getByLabel('Signature of the archive (base64)').fill(signature);
    await tab.getByRole('button', { name: 'Upload and publish' }).click();
    await tab.waitForURL(/\/developer\/publish\/[A-Za-z0-9_-]+$/);
    await tab.getByText(`Published: ${appId} 2.0.0.`).waitFor();
    assert.match((await tab.locator('dl.facts').textContent()) ?? '', /uploaded with the form/);
    assert.deepEqual(await listed(appId), ['2.0.0']);
    const served = await fetch(`${origin}/api/v1/archives/${appId}/2.0.0.tar.gz`);
    assert.equal(served.status, 200);
    assert.ok(Buffer.from(await served.arrayBuffer()).equals(fs.readFileSync(archive)));

    await tab.goto(`${origin}/developer/publish`);
    await upload.getByLabel('Archive (.tar.gz)').setInputFiles(archive);
    await upload.getByLabel('Signature of the archive (base64)').fill('c2lnbmF0dXJl');
    await tab.getByRole('button', { name: 'Upload and publish' }).click();
    await tab.getByText('The release was refused; nothing was saved.').waitFor();
    assert.match((await tab.locator('[role=alert]').textContent()) ?? '', /signature/i);
    await tab.getByRole('link', { name: 'Publish again' }).click();
    await tab.waitForURL(`${origin}/developer/publish`);
    await context.close();
  });
});
