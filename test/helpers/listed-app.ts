import type { ListedApp, ListedRelease, ListingVariant } from '../../src/domain/listings/app-listing.ts';
import { toFragment } from '../../src/domain/listings/app-listing.ts';
import type { EntrySource } from '../../src/domain/browse/catalog-entry.ts';
import { satisfies } from '../../src/domain/versions/semantic-version.ts';

/** A listed app with plain defaults (no releases, no ratings); `extra` overrides any field. */
export const listedApp = (id: string, extra: Partial<ListedApp> = {}): ListedApp => ({
  id,
  categories: ['tools'],
  authors: [],
  userDocs: '',
  adminDocs: '',
  developerDocs: '',
  issueTracker: '',
  website: '',
  discussion: '',
  screenshots: [],
  translations: { en: { name: id, summary: `${id} summary`, description: '' } },
  ratingOverall: 0.5,
  ratingNumOverall: 0,
  ratingRecent: 0.5,
  ratingNumRecent: 0,
  isEnterpriseOnly: false,
  created: '2026-01-01T00:00:00.000000Z',
  lastModified: '2026-01-01T00:00:00.000000Z',
  isFeatured: false,
  certificate: '',
  releases: [],
  ...extra,
});

export const listedRelease = (version: string, platformVersionSpec: string): ListedRelease => ({
  version,
  phpExtensions: [],
  databases: [],
  shellCommands: [],
  phpVersionSpec: '*',
  rawPhpVersionSpec: '*',
  platformVersionSpec,
  rawPlatformVersionSpec: platformVersionSpec,
  minIntSize: 32,
  isNightly: false,
  licenses: ['agpl'],
  translations: { en: { changelog: `changes in ${version} ✓` } },
  download: `https://example.org/${version}.tar.gz`,
  created: '2026-01-01T00:00:00.000000Z',
  lastModified: '2026-01-01T00:00:00.000000Z',
  signature: 'c2ln'.repeat(100),
  signatureDigest: 'sha512',
});

/**
 * apps.json or a platform listing rendered from scratch, the whole catalogue at once, by plain
 * string joining: the oracle the listing engine's assembled bodies are compared with.
 */
export function renderFromScratch(apps: readonly ListedApp[], variant: ListingVariant): string {
  const listed: string[] = [];
  for (const app of apps) {
    if (app.isEnterpriseOnly && !variant.includeEnterprise) continue;
    const fragment = toFragment(app);
    const platform = variant.platform;
    const releases =
      platform === undefined ? fragment.releases : fragment.releases.filter((r) => satisfies(platform, r.bounds));
    if (releases.length === 0) continue;
    listed.push(`${fragment.head}${releases.map((r) => r.json).join(',')}]}`);
  }
  return `[${listed.join(',')}]`;
}

/** The entry source of a listed app as apps.json shows it (what a catalogue reads of it from storage). */
export function entrySourceOf(app: ListedApp): EntrySource {
  const shot = app.screenshots[0];
  return {
    id: app.id,
    translations: app.translations,
    categories: app.categories,
    isFeatured: app.isFeatured,
    isDeprecated: app.isDeprecated === true,
    ratingOverall: app.ratingOverall,
    ratingNumOverall: app.ratingNumOverall,
    created: app.created,
    lastModified: app.lastModified,
    shot: shot === undefined ? null : shot.smallThumbnail || shot.url,
    platformVersionSpecs: [...new Set(app.releases.map((release) => release.platformVersionSpec))].sort(),
  };
}
