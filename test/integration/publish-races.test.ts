import assert from 'node:assert/strict';
import { createPublicKey } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { getOrCreateToken } from '../../src/domain/accounts/api-tokens.ts';
import { importCategories } from '../../src/domain/catalog/import-catalog.ts';
import { isValidSignature } from '../../src/domain/certificates/signature.ts';
import { createUser } from '../helpers/accounts.ts';
import { appArchive, signWith } from '../helpers/app-archive.ts';
import { certFile, readCert } from '../helpers/certificate-fixtures.ts';
import { TEST_TLS_CA, startArchiveServer } from '../helpers/https-archive-server.ts';
import type { ArchiveServer } from '../helpers/https-archive-server.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';
import { TEST_ACTING } from '../helpers/acting.ts';

const ENV = { APPSTORE_CA_CERT: certFile('chain.pem'), APPSTORE_DOWNLOAD_ALLOW_PRIVATE: '1' };

/** The app's two certificates: re-registering with the other one deletes every release. */
const KEYS = [
  { certificate: readCert('news.crt'), signature: readCert('news.sig'), key: 'news' },
  { certificate: readCert('news-2.crt'), signature: readCert('news-2.sig'), key: 'news-2' },
] as const;

interface ListedRelease {
  readonly version: string;
  readonly download: string;
  readonly signature: string;
}

describe(`a re-registration racing publishes (${DIALECT})`, () => {
  let server: TestServer;
  let files: ArchiveServer;
  let token = '';
  let served = 0;
  /** Every archive served, by URL: what a Nextcloud server would download and verify. */
  const hosted = new Map<string, Buffer>();

  before(async () => {
    files = await startArchiveServer();
    // Many publishes of one account in flight at once is what this test is about: above the default of 3.
    server = await createTestServer({
      env: { ...ENV, APPSTORE_PUBLISHES_PER_USER: '100', APPSTORE_PUBLISHES_AT_ONCE: '100' },
      downloadCa: [TEST_TLS_CA],
    });
    await importCategories(
      ['multimedia', 'tools'].map((id) => ({ id, translations: { en: { name: id, description: '' } } })),
      TEST_ACTING,
      server.container.catalog,
    );
    token = await getOrCreateToken(
      await createUser(server.container, 'alice', null),
      TEST_ACTING,
      server.container.accounts,
    );
  });
  after(async () => {
    await server.close();
    await files.close();
  });

  const register = (which: 0 | 1) =>
    server.app.inject({
      method: 'POST',
      url: '/api/v1/apps',
      headers: { authorization: `Token ${token}` },
      payload: { certificate: KEYS[which].certificate, signature: KEYS[which].signature },
    });
  async function publish(version: string, key: string) {
    const bytes = await appArchive({ version });
    served += 1;
    const url = `${files.origin}/race${served}.tar.gz`;
    files.serve(`/race${served}.tar.gz`, bytes);
    hosted.set(url, bytes);
    return server.app.inject({
      method: 'POST',
      url: '/api/v1/apps/releases',
      headers: { authorization: `Token ${token}` },
      payload: { download: url, signature: signWith(key, bytes) },
    });
  }
  /** What a Nextcloud server sees: each of the app's listed releases checked against the listed certificate. */
  async function listedReleases(): Promise<{ certificate: string; releases: ListedRelease[] }> {
    const listing = (await server.app.inject({ method: 'GET', url: '/api/v1/apps.json' })).json() as {
      id: string;
      certificate: string;
      releases: ListedRelease[];
    }[];
    const app = listing.find((entry) => entry.id === 'news');
    return app === undefined
      ? { certificate: '', releases: [] }
      : { certificate: app.certificate, releases: app.releases };
  }
  function assertEveryListedReleaseVerifies(
    listed: { certificate: string; releases: ListedRelease[] },
    context: string,
  ): void {
    const key = createPublicKey(listed.certificate === '' ? KEYS[0].certificate : listed.certificate);
    for (const release of listed.releases) {
      const bytes = hosted.get(release.download);
      assert.ok(bytes !== undefined, `${context}: ${release.download} was never served`);
      assert.ok(
        isValidSignature(bytes, Buffer.from(release.signature, 'base64'), key),
        `${context}: release ${release.version} does not verify against the certificate it is listed with`,
      );
    }
  }

  test('a certificate changed between the check and the save: the publish is refused with 409, nothing listed', async () => {
    assert.equal((await register(0)).statusCode, 201);
    const publishing = server.container.publishing as { trust: typeof server.container.publishing.trust };
    const trust = publishing.trust;
    // The publish has read the app and its old certificate; the owner re-registers before it saves.
    let reRegistered = false;
    publishing.trust = async () => {
      const loaded = await trust();
      if (!reRegistered) {
        reRegistered = true;
        assert.equal((await register(1)).statusCode, 204);
      }
      return loaded;
    };
    try {
      const response = await publish('1.0.0', 'news');
      assert.equal(response.statusCode, 409, response.body);
      assert.equal(response.json().code, 'conflict');
      assert.match(
        response.json().detail,
        /certificate registered for news changed while this release was being checked/,
      );
      const listed = await listedReleases();
      assert.deepEqual(listed.releases, [], 'the release signed with the old key is not listed');
    } finally {
      publishing.trust = trust;
    }
    // Signed with the new key, it goes through.
    assert.equal((await publish('1.0.0', 'news-2')).statusCode, 201);
  });

  test('many publishes in flight while the certificate changes: every listed release verifies against the listed certificate', async () => {
    let current: 0 | 1 = 1;
    for (let round = 0; round < 6; round++) {
      const next: 0 | 1 = current === 0 ? 1 : 0;
      const publishes = Array.from({ length: 8 }, (_, i) => publish(`2.${round}.${i}`, KEYS[current].key));
      // The re-registration starts while the publishes are downloading, checking and saving.
      const reRegistration: ReturnType<typeof register> = new Promise<void>((resolve) =>
        setTimeout(resolve, 5 * round),
      ).then(() => register(next));
      const [registered, published] = await Promise.all([reRegistration, Promise.all(publishes)]);
      assert.equal(registered.statusCode, 204, registered.body);
      for (const response of published) {
        assert.ok(
          [201, 400, 409].includes(response.statusCode),
          `round ${round}: ${response.statusCode} ${response.body}`,
        );
        if (response.statusCode === 400) assert.equal(response.json().code, 'invalid_signature', response.body);
      }
      const listed = await listedReleases();
      // An app without releases is not listed; a listed one is listed with its new certificate.
      if (listed.releases.length > 0)
        assert.equal(listed.certificate.trim(), KEYS[next].certificate.trim(), `round ${round}`);
      assertEveryListedReleaseVerifies(listed, `round ${round}`);
      current = next;
    }
  });
});
