import { createHash } from 'node:crypto';
import { satisfies } from '../versions/semantic-version.ts';
import type { SpecBounds } from '../versions/semantic-version.ts';
import type { ListedApp, ListingVariant } from './app-listing.ts';
import { toFragment } from './app-listing.ts';
import type { GzipPart } from './gzip-parts.ts';
import { compressPart, partText } from './gzip-parts.ts';

/**
 * One app of apps.json as the listings hold it between renders: its JSON with every release,
 * compressed on its own (about 40 % of the JSON's size), and where each release sits in that text
 * so a platform listing can cut out the releases it shows. Nothing else of the app is kept.
 */
export interface AppPart {
  readonly id: string;
  /** The content version of the last write that changed this app's listed data. */
  readonly listingVersion: number;
  readonly enterpriseOnly: boolean;
  /** Recent ratings counted into this text: when the 90-day window moves, a different count means a new text. */
  readonly recentRatings: number;
  readonly whole: GzipPart;
  /** Bytes of `{"id":…,"releases":[` at the start of the text. */
  readonly headLength: number;
  /** Each release's [start, end) in the text, newest first, its Nextcloud range, and whether it is an ExApp's (appapi_apps.json only). */
  readonly releases: ReadonlyArray<{ readonly start: number; readonly end: number; readonly bounds: SpecBounds; readonly exApp: boolean }>;
  /** Platform listings' cuts, by the releases they keep (`0,3,4`), made when first asked for. */
  readonly cuts: Map<string, GzipPart>;
}

export interface PartOptions {
  readonly gzipLevel: number;
}

/** Serialises and compresses one app (the compression runs in zlib's thread pool). */
export async function makeAppPart(app: ListedApp, listingVersion: number, options: PartOptions): Promise<AppPart> {
  const fragment = toFragment(app);
  const pieces: Buffer[] = [Buffer.from(fragment.head, 'utf8')];
  const releases: Array<AppPart['releases'][number]> = [];
  let offset = pieces[0]?.length ?? 0;
  fragment.releases.forEach((release, index) => {
    if (index > 0) {
      pieces.push(COMMA);
      offset += 1;
    }
    const json = Buffer.from(release.json, 'utf8');
    pieces.push(json);
    releases.push({ start: offset, end: offset + json.length, bounds: release.bounds, exApp: release.exApp });
    offset += json.length;
  });
  pieces.push(CLOSE);
  const text = Buffer.concat(pieces);
  return {
    id: app.id,
    listingVersion,
    enterpriseOnly: app.isEnterpriseOnly,
    recentRatings: app.ratingNumRecent,
    whole: await compressPart(text, options.gzipLevel),
    headLength: pieces[0]?.length ?? 0,
    releases,
    cuts: new Map(),
  };
}

/**
 * Names the serialisation that makes a part: a digest of a sample app, with every field, as this
 * code writes it, and of the version of the part's layout. A part saved by code that writes apps
 * differently (a field added, renamed or moved) has another format and is not taken.
 */
export const PART_FORMAT: string = (() => {
  const release = {
    version: '1.0.0-beta.1', phpExtensions: [{ id: 'ext', versionSpec: '>=1.0.0', rawVersionSpec: '>=1' }], databases: [{ id: 'pgsql', versionSpec: '*', rawVersionSpec: '*' }],
    shellCommands: ['sh'], phpVersionSpec: '>=8.1.0', rawPhpVersionSpec: '>=8.1', platformVersionSpec: '>=30.0.0 <32.0.0', rawPlatformVersionSpec: '>=30 <=31',
    minIntSize: 64, isNightly: true, licenses: ['agpl'], translations: { en: { changelog: 'c' } }, download: 'https://d/1.tar.gz',
    created: '2026-01-01T00:00:00.000000Z', lastModified: '2026-01-02T00:00:00.000000Z', signature: 's', signatureDigest: 'sha512',
  };
  const sample: ListedApp = {
    id: 'sample', categories: ['tools'], authors: [{ name: 'a', mail: 'm', homepage: 'h' }], userDocs: 'u', adminDocs: 'a', developerDocs: 'd',
    issueTracker: 'i', website: 'w', discussion: 'd', screenshots: [{ url: 'https://s', smallThumbnail: 'https://t' }],
    translations: { en: { name: 'n', summary: 's', description: 'd' } }, ratingOverall: 0.25, ratingNumOverall: 1, ratingRecent: 0.75, ratingNumRecent: 2,
    isEnterpriseOnly: true, created: '2026-01-01T00:00:00.000000Z', lastModified: '2026-01-02T00:00:00.000000Z', isFeatured: true, certificate: 'c\nd', releases: [release],
  };
  const fragment = toFragment(sample);
  return createHash('sha256').update(`part layout 2\n${fragment.head}\n${fragment.releases.map((r) => r.json).join('\n')}`).digest('base64url').slice(0, 16);
})();

const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']}');

/**
 * Which releases a listing keeps: apps.json and the platform listings an app's ordinary releases
 * (those a platform version satisfies), appapi_apps.json its ExApp releases. Every one, none, or a
 * cut named by their positions.
 */
export function releasesFor(part: AppPart, variant: Pick<ListingVariant, 'platform' | 'exApps'>): 'all' | 'none' | number[] {
  const { platform } = variant;
  const exApps = variant.exApps === true;
  const kept: number[] = [];
  part.releases.forEach((release, index) => {
    if (release.exApp === exApps && (exApps || platform === undefined || satisfies(platform, release.bounds))) kept.push(index);
  });
  if (kept.length === 0) return 'none';
  return kept.length === part.releases.length ? 'all' : kept;
}

/** The app with only some of its releases: cut from the whole text once, then reused. */
export async function cutAppPart(part: AppPart, kept: readonly number[], options: PartOptions): Promise<GzipPart> {
  const key = kept.join(',');
  const known = part.cuts.get(key);
  if (known !== undefined) return known;
  const text = await partText(part.whole);
  const pieces: Buffer[] = [text.subarray(0, part.headLength)];
  kept.forEach((index, position) => {
    const release = part.releases[index];
    if (release === undefined) throw new Error(`release ${index} of ${part.id} does not exist`);
    if (position > 0) pieces.push(COMMA);
    pieces.push(text.subarray(release.start, release.end));
  });
  pieces.push(CLOSE);
  const cut = await compressPart(Buffer.concat(pieces), options.gzipLevel);
  part.cuts.set(key, cut);
  return cut;
}

/** Bytes held for one app: its whole part and its cuts. */
export function partBytes(part: AppPart): number {
  let bytes = part.whole.deflated.length;
  for (const cut of part.cuts.values()) bytes += cut.deflated.length;
  return bytes;
}
