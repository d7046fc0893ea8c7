import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { buildArchive, manifestXml } from '../helpers/app-archive.ts';
import { BROWSER_SKIP } from '../helpers/browser.ts';
import { startDeveloperStore, runShown } from '../helpers/developer-store.ts';
import type { DeveloperStore } from '../helpers/developer-store.ts';
import { DIALECT } from '../helpers/test-database.ts';

/** A publish that takes a while: the job page works while the archive trickles in. */
describe(
  `a publish from a slow host, through the developer pages in Chromium (${DIALECT})`,
  { skip: BROWSER_SKIP },
  () => {
    let store: DeveloperStore;
    before(async () => {
      store = await startDeveloperStore();
    });
    after(() => store?.close());

    test('a 20 MB archive from a slow host: the job page says it is working, refreshes itself, then shows the result', async (t) => {
      const { files, origin, keys, signedIn } = store;
      const appId = 'slow_big';
      await store.registerThroughApi('sam', 'harbor lantern meadow quartz', appId);

      // 20,000,000 bytes that do not compress, trickled out in 512 KiB steps every 150 ms (about 6 s).
      const bytes = await buildArchive({
        [`${appId}/appinfo/info.xml`]: manifestXml({ id: appId, version: '1.0.0', name: 'Slow Big' }),
        [`${appId}/data.bin`]: randomBytes(20_000_000 - 4096),
      });
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
      const archiveSignature = runShown(
        `openssl dgst -sha512 -sign ${appId}.key ${appId}.tar.gz | openssl base64`,
        keys,
      );

      const { context, tab } = await signedIn('sam', 'harbor lantern meadow quartz');
      const loads: number[] = [];
      tab.on('load', () => loads.push(sent));
      await tab.goto(`${origin}/developer/publish`);
      await tab.getByLabel('Download address (HTTPS)').fill(`${files.origin}/${appId}.tar.gz`);
      await tab
        .locator('form[action="/developer/publish"]')
        .getByLabel('Signature of the archive (base64)')
        .fill(archiveSignature);
      const started = Date.now();
      await tab.getByRole('button', { name: 'Publish', exact: true }).click();
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
      assert.ok(
        loads.some((at) => at > 0 && at < bytes.length),
        'a refresh came mid-download',
      );
      const listedRelease = (
        (await (await fetch(`${origin}/api/v1/apps.json`)).json()) as Array<{
          id: string;
          releases: Array<{ version: string }>;
        }>
      ).find((a) => a.id === appId);
      assert.deepEqual(
        listedRelease?.releases.map((r) => r.version),
        ['1.0.0'],
      );
      t.diagnostic(
        `20 MB slow publish: job page after ${answered} ms, published after ${took} ms, ${loads.length - loadsBefore} refreshes`,
      );
      await context.close();
    });
  },
);
