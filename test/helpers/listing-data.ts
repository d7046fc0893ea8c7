import type { Container } from '../../src/container.ts';
import type { ReleaseCandidate } from '../../src/domain/releases/release-data.ts';
import { testAudit } from './acting.ts';

/**
 * Catalogue writes straight through the storage the use cases use, without archives, signatures
 * or downloads (tested elsewhere): what the listing tests need to make many writes quickly.
 */
export function candidate(appId: string, version: string, spec: string, words: string): ReleaseCandidate {
  return {
    app: {
      id: appId,
      categories: ['tools'],
      authors: [{ name: 'Ann Ø', mail: 'ann@example.org', homepage: '' }],
      userDocs: '',
      adminDocs: '',
      developerDocs: '',
      issueTracker: '',
      website: `https://example.org/${appId}`,
      discussion: '',
      screenshots: [{ url: `https://example.org/${appId}.png`, smallThumbnail: '' }],
      translations: { en: { name: `${appId} app`, summary: words, description: `${words} ✓ `.repeat(20) } },
    },
    icon: null,
    release: {
      version,
      phpExtensions: [],
      databases: [{ id: 'pgsql', versionSpec: '*', rawVersionSpec: '*' }],
      shellCommands: [],
      phpVersionSpec: '>=8.1.0',
      rawPhpVersionSpec: '>=8.1',
      platformVersionSpec: spec,
      rawPlatformVersionSpec: spec,
      minIntSize: 32,
      isNightly: false,
      licenses: ['agpl'],
      translations: { en: { changelog: `- ${words}` } },
      externalApp: null,
    },
  };
}

/** Registers the app, or changes its certificate (its releases go, as with a real new certificate). */
export async function registerDirectly(
  container: Container,
  appId: string,
  certificate: string,
  ownerId: number,
  now: Date,
): Promise<void> {
  await container.registration.registry.register(
    appId,
    certificate,
    ownerId,
    (existing) =>
      existing === null
        ? { kind: 'create' }
        : {
            kind: 'update',
            ownerId,
            certificateChanged: existing.certificate !== certificate,
            changed: existing.certificate !== certificate,
          },
    now,
    testAudit,
  );
}

/** Saves a release as a publish would; an app that does not exist (any more) is registered first. */
export async function publishDirectly(
  container: Container,
  release: { appId: string; version: string; spec: string; words: string; certificate: string; ownerId: number },
  now: Date,
): Promise<void> {
  const { appId, version, spec, words } = release;
  if ((await container.registration.registry.findApp(appId)) === null)
    await registerDirectly(container, appId, release.certificate, release.ownerId, now);
  await container.publishing.releases.saveRelease(
    candidate(appId, version, spec, words),
    {
      download: `https://example.org/${appId}-${version}.tar.gz`,
      developerDownload: null,
      provenance: null,
      signature: Buffer.from(`${appId}${version}`).toString('base64'),
      sha256: 'ab'.repeat(32),
      size: 10,
    },
    { confirm: () => undefined, isLatest: (others) => others.every((o) => o < version) },
    now,
    testAudit,
  );
}
