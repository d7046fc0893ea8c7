import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fs from 'node:fs';
import path from 'node:path';
import { createUser } from '../helpers/accounts.ts';
import { appArchive } from '../helpers/app-archive.ts';
import { BROWSER_SKIP, fillSignIn, seriousViolations } from '../helpers/browser.ts';
import { startDeveloperStore, runShown } from '../helpers/developer-store.ts';
import type { DeveloperStore } from '../helpers/developer-store.ts';
import { DIALECT } from '../helpers/test-database.ts';

/** An administrator at work, then axe on every page kind the developer and admin pages have. */
describe(
  `the admin pages in Chromium, and every developer and admin page kind checked by axe (${DIALECT})`,
  { skip: BROWSER_SKIP },
  () => {
    let store: DeveloperStore;
    before(async () => {
      store = await startDeveloperStore();
    });
    after(() => store?.close());

    test('an administrator disables a user, features an app, edits a category, revokes a certificate and reads the audit log', async () => {
      const { server, files, origin, keys, signedIn } = store;
      const appId = 'mal_app';
      // mallory's app, made through the API with a certificate from the store's authority.
      const { auth } = await store.registerThroughApi('mallory', 'granite puzzle willow sunrise', appId);
      await createUser(server.container, 'ada', 'marble falcon tundra violet', { isAdmin: true });
      const publish = async (version: string) => {
        const bytes = await appArchive({ id: appId, version, name: 'Mallory App' });
        fs.writeFileSync(path.join(keys, `${appId}.tar.gz`), bytes);
        files.serve(`/${appId}-${version}.tar.gz`, bytes);
        const archiveSignature = runShown(
          `openssl dgst -sha512 -sign ${appId}.key ${appId}.tar.gz | openssl base64`,
          keys,
        );
        return fetch(`${origin}/api/v1/apps/releases`, {
          method: 'POST',
          headers: auth,
          body: JSON.stringify({ download: `${files.origin}/${appId}-${version}.tar.gz`, signature: archiveSignature }),
        });
      };
      assert.equal((await publish('1.0.0')).status, 201);

      const { context, tab } = await signedIn('ada', 'marble falcon tundra violet');
      // On a 390 px phone the header's links, an administrator's six, fit one line (the account
      // link shows the name only; its accessible name stays "Account (ada)").
      const phone = await context.newPage();
      await phone.setViewportSize({ width: 390, height: 800 });
      await phone.goto(`${origin}/admin`);
      const site = phone.getByRole('navigation', { name: 'Site' });
      const first = await site.getByRole('link', { name: 'Apps', exact: true }).boundingBox();
      const signOut = await site.getByRole('button', { name: 'Sign out' }).boundingBox();
      assert.ok(first !== null && signOut !== null && Math.abs(first.y - signOut.y) < 8, 'Sign out on the same line');
      assert.equal(await site.getByRole('link', { name: 'Account (ada)' }).count(), 1);
      await phone.close();
      // An administrator reaches the admin pages from the site's header, on any page.
      await tab.goto(`${origin}/`);
      await tab.getByRole('navigation', { name: 'Site' }).getByRole('link', { name: 'Admin' }).click();
      await tab.getByRole('heading', { name: 'Administration', level: 1 }).waitFor();
      // The overview: what waits (nothing here), counts, the latest changes (newest first).
      assert.match(
        (await tab.locator('section[aria-labelledby=waiting]').textContent()) ?? '',
        /Nothing: no certificate request waits/,
      );
      const glance = (await tab.locator('#glance + dl').textContent()) ?? '';
      assert.match(glance, /Users\d+ \(1 administrator\)/);
      assert.match(glance, /Apps1Categories/);
      assert.match((await tab.locator('table.data tbody tr').first().textContent()) ?? '', /release\.published/);

      // Featured: the home page and apps.json change.
      await tab.getByRole('link', { name: 'Apps', exact: true }).last().click();
      await tab.getByRole('link', { name: appId }).click();
      await tab.getByLabel('Featured').check();
      await tab.getByRole('button', { name: 'Save' }).click();
      await tab.getByText('The settings were saved.').waitFor();
      const apps = (await (await fetch(`${origin}/api/v1/apps.json`)).json()) as Array<{
        id: string;
        isFeatured: boolean;
      }>;
      assert.equal(apps.find((a) => a.id === appId)?.isFeatured, true);
      await tab.goto(`${origin}/`);
      assert.ok(
        (
          await tab.locator('section', { has: tab.getByRole('heading', { name: 'Featured apps' }) }).textContent()
        )?.includes('Mallory App'),
      );

      // A category's text.
      await tab.goto(`${origin}/admin/categories`);
      await tab.getByLabel('Category id').fill('multimedia');
      await tab.getByLabel('Name', { exact: true }).fill('Media & Music');
      await tab.getByRole('button', { name: 'Save the category' }).click();
      await tab.getByText('Category multimedia saved.').waitFor();
      const categories = (await (await fetch(`${origin}/api/v1/categories.json`)).json()) as Array<{
        id: string;
        translations: Record<string, { name: string }>;
      }>;
      assert.equal(categories.find((c) => c.id === 'multimedia')?.translations['en']?.name, 'Media & Music');

      // Revoke mallory's certificate by its serial: the next publish is refused with the reason.
      const serial = runShown(`openssl x509 -noout -serial -in ${appId}.crt`, keys)
        .trim()
        .replace(/^serial=/, '');
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
      for (const event of ['app.flags_changed', 'categories.imported', 'certificate.revoked'])
        assert.ok(log.includes(event), `${event} in ${log}`);
      await tab.goto(`${origin}/admin/audit?user=mallory&event=user.`);
      const rows = await tab.locator('table.data tbody tr').allTextContents();
      // Newest first: mallory's account was made before ada disabled it.
      assert.ok(rows[0]?.includes('user.disabled'), rows.join(' | '));
      assert.ok(rows.at(-1)?.includes('user.created'), rows.join(' | '));
      await context.close();
    });

    test('no serious or critical accessibility violation (axe-core) on any developer or admin page kind, nor overflow on a phone', async () => {
      const { browser, origin } = store;
      const context = await browser.newContext({ bypassCSP: true, viewport: { width: 320, height: 740 } });
      const tab = await context.newPage();
      await tab.goto(`${origin}/account/login?next=%2Fdeveloper`);
      await fillSignIn(tab, 'ada', 'marble falcon tundra violet');
      await tab.waitForURL(`${origin}/developer`);
      // A publish refused at once (nothing listens there): its page is a page kind too.
      await tab.goto(`${origin}/developer/publish`);
      await tab.getByLabel('Download address (HTTPS)').fill('https://127.0.0.1:1/nothing.tar.gz');
      await tab
        .locator('form[action="/developer/publish"]')
        .getByLabel('Signature of the archive (base64)')
        .fill('c2lnbmF0dXJl');
      await tab.getByRole('button', { name: 'Publish', exact: true }).click();
      await tab.getByText('The release was refused; nothing was saved.').waitFor({ timeout: 30_000 });
      const job = new URL(tab.url()).pathname;
      // "Publish again" keeps what was sent (the signature is pasted again).
      await tab.getByRole('link', { name: 'Publish again' }).click();
      assert.equal(await tab.getByLabel('Download address (HTTPS)').inputValue(), 'https://127.0.0.1:1/nothing.tar.gz');
      // The archive's name gives the app id for the signing command.
      assert.match(
        (await tab.locator('pre.command').first().textContent()) ?? '',
        /-sign nothing\.key nothing\.tar\.gz/,
      );
      const every = [
        '/developer',
        '/developer/certificates?app=mal_app',
        '/developer/register',
        '/developer/publish',
        '/developer/apps/generate',
        job,
        '/developer/apps/mal_app',
        '/admin',
        '/admin/users',
        '/admin/apps',
        '/admin/reports',
        '/admin/categories',
        '/admin/platforms',
        '/admin/discover',
        '/admin/certificates',
        '/admin/audit',
      ];
      // Every page kind in English; languages-browser.test.ts checks the other eight languages in
      // npm run test:long (and so in CI).
      for (const language of ['en']) {
        await context.addCookies([{ name: 'appstore_lang', value: language, url: origin }]);
        for (const url of every) {
          await tab.goto(`${origin}${url}`);
          assert.equal(await tab.locator('html').getAttribute('lang'), language.replace('_', '-'), url);
          const { serious, all } = await seriousViolations(tab);
          assert.deepEqual(serious, [], `${language} ${url}: ${all}`);
          const overflow = await tab.evaluate(
            () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
          );
          const widest = await tab.evaluate(() =>
            [...document.querySelectorAll('body *')]
              .filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
              .slice(-3)
              .map((e) => `${e.tagName}.${e.className}: ${(e.textContent ?? '').slice(0, 60)}`)
              .join(' | '),
          );
          assert.ok(overflow <= 0, `${language} ${url} is wider than the phone by ${overflow}px: ${widest}`);
        }
      }
      await context.close();
    });
  },
);
