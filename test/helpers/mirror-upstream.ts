import assert from 'node:assert/strict';
import { importCategories } from '../../src/domain/catalog/import-catalog.ts';
import { TEST_ACTING } from './acting.ts';
import { certFile } from './certificate-fixtures.ts';
import { startHttpsFront } from './https-front.ts';
import type { HttpsFront } from './https-front.ts';
import { TEST_TLS_CA, startArchiveServer } from './https-archive-server.ts';
import type { ArchiveServer } from './https-archive-server.ts';
import { injectSend, publishFixtureRelease, registerFixtureApp, userWithToken } from './store-actions.ts';
import { createTestServer } from './test-server.ts';
import type { TestServer } from './test-server.ts';

export interface UpstreamStore {
  readonly server: TestServer;
  /** The store reached over HTTPS with the test CA, as a mirror reaches apps.nextcloud.com. */
  readonly front: HttpsFront;
  /** Where its releases' archives are downloaded from. */
  readonly files: ArchiveServer;
  /** The developer's token, who owns news and notes there. */
  readonly token: string;
  /** The variables of a store that mirrors this one (its root is the test authority's chain). */
  readonly mirrorEnv: Readonly<Record<string, string>>;
  /** Publishes a release there (with `icon` as its img/app.svg when given; a nightly when `nightly`). */
  publish(id: 'news' | 'notes', version: string, icon?: string, nightly?: boolean): Promise<void>;
  close(): Promise<void>;
}

/**
 * A second instance of this store standing in for the original (archives not kept): news and notes registered by a
 * developer, signed by the test authority, with the given releases published.
 */
export async function startUpstreamStore(
  releases: readonly (readonly ['news' | 'notes', string])[],
): Promise<UpstreamStore> {
  const files = await startArchiveServer();
  const server = await createTestServer({
    // As the original, it lists the developers' URLs (HTTPS, on the test archive server).
    env: { APPSTORE_CA_CERT: certFile('chain.pem'), APPSTORE_DOWNLOAD_ALLOW_PRIVATE: '1', APPSTORE_KEEP_ARCHIVES: '0' },
    downloadCa: [TEST_TLS_CA],
  });
  await importCategories(
    ['multimedia', 'tools', 'office'].map((id) => ({ id, translations: { en: { name: id, description: '' } } })),
    TEST_ACTING,
    server.container.catalog,
  );
  const token = await userWithToken(server.container, 'developer');
  await registerFixtureApp(injectSend(server.app), token, 'news');
  await registerFixtureApp(injectSend(server.app), token, 'notes');
  const publish = async (id: 'news' | 'notes', version: string, icon?: string, nightly = false): Promise<void> => {
    const answer = await publishFixtureRelease(injectSend(server.app), token, files, {
      id,
      version,
      nightly,
      ...(icon === undefined ? {} : { icon }),
    });
    assert.ok(answer.status === 201 || answer.status === 200, answer.text); // created, or published again
  };
  for (const [id, version] of releases) await publish(id, version);
  const front = await startHttpsFront(server.app);
  return {
    server,
    front,
    files,
    token,
    mirrorEnv: {
      APPSTORE_MIRROR_ROOT_CERT: certFile('chain.pem'),
      APPSTORE_CA_CERT: certFile('chain.pem'),
      APPSTORE_MIRROR_UPSTREAM: `${front.origin}/api/v1`,
      APPSTORE_DOWNLOAD_ALLOW_PRIVATE: '1',
    },
    publish,
    async close() {
      await server.close();
      await front.close();
      await files.close();
    },
  };
}
