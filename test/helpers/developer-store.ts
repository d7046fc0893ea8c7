import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { userActing } from '../../src/domain/audit/audit.ts';
import { importCategories, importPlatformReleases } from '../../src/domain/catalog/import-catalog.ts';
import { requestCertificate } from '../../src/domain/identity/request-certificate.ts';
import { createUser } from './accounts.ts';
import { TEST_ACTING } from './acting.ts';
import { appArchive } from './app-archive.ts';
import { fillSignIn, launchBrowser } from './browser.ts';
import { TEST_TLS_CA_FILE, startArchiveServer } from './https-archive-server.ts';
import type { ArchiveServer } from './https-archive-server.ts';
import { startMailServer } from './mail-server.ts';
import type { MailServer } from './mail-server.ts';
import { startServeProcess } from './serve-process.ts';
import type { ServeProcess } from './serve-process.ts';
import { createTestServer } from './test-server.ts';
import type { TestServer } from './test-server.ts';

/** Runs a command the page shows, as its reader would paste it into a shell, in `dir`. */
export function runShown(command: string, dir: string): string {
  return execFileSync('bash', ['-c', command], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** The text of the command block labelled `label`. */
export async function shownCommand(tab: Page, label: string): Promise<string> {
  return (await tab.getByLabel(label, { exact: true }).textContent())?.trim() ?? '';
}

/**
 * What the developer and admin pages' browser tests work with: `appstore serve` (the bundle) with
 * the store's own authority, mail and an HTTPS server for archives, two Nextcloud versions, two
 * categories, the users carl and tess, and Chromium. Each test file starts its own.
 */
export interface DeveloperStore {
  readonly server: TestServer;
  readonly files: ArchiveServer;
  readonly mail: MailServer;
  readonly serve: ServeProcess;
  readonly browser: Browser;
  readonly origin: string;
  /** A folder for keys, requests and archives, removed at the end. */
  readonly keys: string;
  /** A new browser context signed in as `username`, on /developer. */
  signedIn(
    username: string,
    password: string,
    viewport?: { width: number; height: number },
  ): Promise<{ context: BrowserContext; tab: Page }>;
  /** Serves an archive of `version`, signs it with the command the publish page shows, and publishes it there. */
  publishThroughPage(tab: Page, appId: string, version: string): Promise<void>;
  /**
   * A new user registers `appId` through the API, with a key made here and a certificate from the
   * store's authority (`<keys>/<appId>.key` and `.crt`): the certificate and the user's Basic
   * authorization header.
   */
  registerThroughApi(
    username: string,
    password: string,
    appId: string,
  ): Promise<{ certificate: string; auth: Record<string, string> }>;
  /** The versions apps.json lists for the app. */
  listed(appId: string): Promise<string[]>;
  close(): Promise<void>;
}

export async function startDeveloperStore(): Promise<DeveloperStore> {
  const keys = fs.mkdtempSync(path.join(os.tmpdir(), 'appstore-dev-keys-'));
  const files = await startArchiveServer();
  const mail = await startMailServer();
  // The store's own authority (no APPSTORE_CA_CERT): it issues certificates from the page.
  const server = await createTestServer();
  await importPlatformReleases(
    ['32.0.1', '31.0.4'].map((version) => ({ version, hasRelease: true, isSupported: true })),
    TEST_ACTING,
    server.container.catalog,
  );
  await importCategories(
    ['multimedia', 'tools'].map((id) => ({ id, translations: { en: { name: id, description: '' } } })),
    TEST_ACTING,
    server.container.catalog,
  );
  await createUser(server.container, 'carl', 'copper kettle autumn ridge');
  await createUser(server.container, 'tess', 'silver canyon orchard mist');
  const serve = await startServeProcess({
    ...server.database.env,
    APPSTORE_SMTP_URL: mail.url,
    APPSTORE_DOWNLOAD_ALLOW_PRIVATE: '1',
    NODE_EXTRA_CA_CERTS: TEST_TLS_CA_FILE,
  });
  const origin = serve.url;
  const browser = await launchBrowser();

  return {
    server,
    files,
    mail,
    serve,
    browser,
    origin,
    keys,
    async signedIn(username, password, viewport = { width: 1280, height: 900 }) {
      const context = await browser.newContext({ viewport });
      const tab = await context.newPage();
      await tab.goto(`${origin}/account/login?next=%2Fdeveloper`);
      await fillSignIn(tab, username, password);
      await tab.waitForURL(`${origin}/developer`);
      return { context, tab };
    },
    async publishThroughPage(tab, appId, version) {
      const archive = path.join(keys, `${appId}.tar.gz`);
      fs.writeFileSync(archive, await appArchive({ id: appId, version, name: 'Dora Notes' }));
      files.serve(`/${appId}-${version}.tar.gz`, fs.readFileSync(archive));
      await tab.goto(`${origin}/developer/publish`);
      const command = (await shownCommand(tab, '1. Sign the archive with your key')).replace(/APP/g, appId);
      const signature = runShown(command, keys);
      await tab.getByLabel('Download address (HTTPS)').fill(`${files.origin}/${appId}-${version}.tar.gz`);
      await tab
        .locator('form[action="/developer/publish"]')
        .getByLabel('Signature of the archive (base64)')
        .fill(signature);
      await tab.getByRole('button', { name: 'Publish', exact: true }).click();
      await tab.waitForURL(/\/developer\/publish\/[A-Za-z0-9_-]+$/);
      await tab.getByText(`: ${appId} ${version}.`).waitFor({ timeout: 30_000 });
    },
    async registerThroughApi(username, password, appId) {
      const user = await createUser(server.container, username, password);
      runShown(
        `openssl req -new -newkey rsa:2048 -nodes -keyout ${appId}.key -subj /CN=${appId} -out ${appId}.csr`,
        keys,
      );
      const csr = fs.readFileSync(path.join(keys, `${appId}.csr`), 'utf8');
      const issued = await requestCertificate(
        csr,
        user,
        userActing(user, null, null),
        server.container.certificateRequests,
      );
      const certificate =
        issued.status === 'issued' ? issued.certificate : assert.fail('the store’s authority issues at once');
      fs.writeFileSync(path.join(keys, `${appId}.crt`), certificate);
      const auth = {
        authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`,
        'content-type': 'application/json',
      };
      const signature = runShown(
        `printf '%s' ${appId} | openssl dgst -sha512 -sign ${appId}.key | openssl base64`,
        keys,
      );
      const registered = await fetch(`${origin}/api/v1/apps`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ certificate, signature }),
      });
      assert.equal(registered.status, 201, await registered.text());
      return { certificate, auth };
    },
    async listed(appId) {
      const apps = (await (await fetch(`${origin}/api/v1/apps.json`)).json()) as Array<{
        id: string;
        releases: Array<{ version: string }>;
      }>;
      return (
        apps
          .find((a) => a.id === appId)
          ?.releases.map((r) => r.version)
          .sort() ?? []
      );
    },
    async close() {
      await browser.close();
      assert.equal(await serve.stop(), 0, serve.output());
      await server.close();
      await files.close();
      await mail.close();
      fs.rmSync(keys, { recursive: true, force: true });
    },
  };
}
