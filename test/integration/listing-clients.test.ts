import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { createUser } from '../helpers/accounts.ts';
import { publishDirectly } from '../helpers/listing-data.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';
import { testAudit } from '../helpers/acting.ts';

const run = promisify(execFile);

async function available(command: string, args: string[]): Promise<boolean> {
  try {
    await run(command, args);
    return true;
  } catch {
    return false;
  }
}

/**
 * The gzip bodies assembled from parts, as real HTTP clients decode them: curl (libcurl's zlib),
 * PHP's curl extension with CURLOPT_ENCODING (what Guzzle in the Nextcloud server uses) and
 * Node's fetch. Clients that are not installed are skipped, and say so.
 */
describe(`assembled listings in real HTTP clients (${DIALECT})`, () => {
  let server: TestServer;
  let origin: string;
  let expected: string;

  before(async () => {
    server = await createTestServer();
    await server.container.catalog.store.upsertCategories(
      [{ id: 'tools', translations: { en: { name: 'Tools', description: '' } } }],
      new Date(),
      testAudit,
    );
    const owner = await createUser(server.container, 'owner', null);
    for (const appId of ['one', 'two', 'three']) {
      for (const version of ['1.0.0', '1.1.0', '2.0.0']) {
        await publishDirectly(
          server.container,
          {
            appId,
            version,
            spec: '>=30.0.0',
            words: `${appId} ${version} ✓ `.repeat(50),
            certificate: 'PEM',
            ownerId: owner.id,
          },
          new Date(),
        );
      }
    }
    await server.app.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;
    expected = (
      await server.app.inject({ method: 'GET', url: '/api/v1/apps.json', headers: { 'accept-encoding': 'identity' } })
    ).body;
    assert.ok(expected.length > 10_000);
  });
  after(() => server.close());

  test('Node fetch (undici) with Accept-Encoding: gzip', async () => {
    const response = await fetch(`${origin}/api/v1/apps.json`, { headers: { 'accept-encoding': 'gzip' } });
    assert.equal(response.headers.get('content-encoding'), 'gzip');
    assert.equal(await response.text(), expected);
  });

  test('curl --compressed', async (t) => {
    if (!(await available('curl', ['--version']))) return t.skip('curl is not installed');
    // -D -: the response headers, then the decoded body.
    const { stdout } = await run(
      'curl',
      ['-sS', '--compressed', '-H', 'Accept-Encoding: gzip', '-D', '-', `${origin}/api/v1/apps.json`],
      { maxBuffer: 64 * 1024 * 1024 },
    );
    const split = stdout.indexOf('\r\n\r\n');
    assert.match(stdout.slice(0, split), /content-encoding: gzip/i, 'the body came compressed');
    assert.equal(stdout.slice(split + 4), expected);
  });

  test('PHP curl with CURLOPT_ENCODING, as Guzzle in the Nextcloud server', async (t) => {
    if (!(await available('php', ['-r', 'exit(function_exists("curl_init") ? 0 : 1);'])))
      return t.skip('php with the curl extension is not installed');
    const script = `$c = curl_init($argv[1]); curl_setopt($c, CURLOPT_RETURNTRANSFER, true); curl_setopt($c, CURLOPT_ENCODING, 'gzip'); $body = curl_exec($c); if ($body === false) { fwrite(STDERR, curl_error($c)); exit(1); } echo $body;`;
    const { stdout } = await run('php', ['-r', script, `${origin}/api/v1/apps.json`], { maxBuffer: 64 * 1024 * 1024 });
    assert.equal(stdout, expected);
  });
});
