import { createHash } from 'node:crypto';
import { coreSatisfies, numericCore } from '../versions/semantic-version.ts';
import type { SpecBounds } from '../versions/semantic-version.ts';
import type { ListedApp, ListingApp, ListingVariant } from './app-listing.ts';
import { compareReleasesDescending, crlf, isExAppRelease, releaseText, toFragment } from './app-listing.ts';
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
  readonly releases: ReadonlyArray<{
    readonly start: number;
    readonly end: number;
    readonly bounds: SpecBounds;
    readonly exApp: boolean;
  }>;
  /** Platform listings' cuts, by the releases they keep (`0,3,4`), made when first asked for. */
  readonly cuts: Map<string, GzipPart>;
}

export interface PartOptions {
  readonly gzipLevel: number;
}

/**
 * Serialises and compresses one app with `compress` (a render's PartCompressor: zlib's thread
 * pool). Only the text and the part's small fields wait for the compression: the app's data (tens
 * of kilobytes of strings) is not held meanwhile, so the compressions in flight during a render
 * keep nothing in V8's young generation for its collections to copy.
 */
export function makeAppPart(
  app: ListingApp,
  listingVersion: number,
  compress: (text: Buffer) => Promise<GzipPart>,
): Promise<AppPart> {
  const fragment = toFragment(app);
  // The text is written into one buffer of its exact size: no buffer per release to join.
  let size = Buffer.byteLength(fragment.head) + CLOSE.length + Math.max(0, fragment.releases.length - 1) * COMMA.length;
  for (const release of fragment.releases)
    size += typeof release.json === 'string' ? Buffer.byteLength(release.json) : release.json.length;
  const text = Buffer.allocUnsafe(size);
  const headLength = text.write(fragment.head, 0);
  let offset = headLength;
  const releases = fragment.releases.map((release, index) => {
    if (index > 0) offset += COMMA.copy(text, offset);
    const start = offset;
    if (typeof release.json === 'string') offset += text.write(release.json, offset);
    else {
      text.set(release.json, offset);
      offset += release.json.length;
    }
    return { start, end: offset, bounds: release.bounds, exApp: release.exApp };
  });
  offset += CLOSE.copy(text, offset);
  if (offset !== size) throw new Error(`the text of ${app.id} is ${offset} bytes, not the ${size} counted`);
  const fields = {
    id: app.id,
    listingVersion,
    enterpriseOnly: app.isEnterpriseOnly,
    recentRatings: app.ratingNumRecent,
    headLength,
    releases,
  };
  return compress(text).then((whole): AppPart => ({ ...fields, whole, cuts: new Map() }));
}

/** A JSON Schema as TypeBox writes one (the listing's App and Release). */
interface JsonSchema {
  readonly type?: string;
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly items?: JsonSchema;
  readonly patternProperties?: Readonly<Record<string, JsonSchema>>;
  readonly anyOf?: readonly JsonSchema[];
  readonly const?: unknown;
  readonly $ref?: string;
}

/**
 * A value with every property the schema names (`optional` false: only the required ones), made
 * from the schema alone: strings hold a line break, so what the serialiser does to text shows.
 */
function sampleOf(schema: JsonSchema, refs: Readonly<Record<string, unknown>>, optional: boolean): unknown {
  if (schema.$ref !== undefined) return refs[schema.$ref];
  if (schema.const !== undefined) return schema.const;
  if (schema.anyOf !== undefined) return sampleOf(schema.anyOf[0] ?? {}, refs, optional);
  switch (schema.type) {
    case 'string':
      return 'x\ny';
    case 'integer':
      return 2;
    case 'number':
      return 0.5;
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'array':
      return schema.items === undefined ? [] : [sampleOf(schema.items, refs, optional)];
    case 'object': {
      const pattern = Object.values(schema.patternProperties ?? {})[0];
      if (pattern !== undefined) return { en: sampleOf(pattern, refs, optional) };
      const kept = Object.entries(schema.properties ?? {}).filter(
        ([name]) => optional || (schema.required ?? []).includes(name),
      );
      return Object.fromEntries(kept.map(([name, property]) => [name, sampleOf(property, refs, optional)]));
    }
    default:
      return null;
  }
}

/** How a saved part's fields are laid out (AppPart, and its row): changed when they change shape. */
const PART_LAYOUT =
  'part layout 3: id, listingVersion, enterpriseOnly, recentRatings, whole {deflated, crc, length}, headLength, releases [{start, end, bounds, exApp}]';

/**
 * Names everything that shapes a saved part, so that a part saved by other code is never taken:
 * the listing's schema (every field, optional ones included), the text this code makes of an app
 * generated from that schema (one release with every field, one with only the required ones), the
 * source of the serialiser's functions, and the part layout. A field added, renamed or moved in
 * the schema or the serialiser gives another format; upgraded nodes then render again.
 */
export function partFormat(appSchema: JsonSchema, releaseSchema: JsonSchema): string {
  const fullRelease = sampleOf(releaseSchema, {}, true);
  const plainRelease = sampleOf(releaseSchema, {}, false);
  const app = sampleOf(appSchema, { Release: fullRelease }, true) as ListedApp;
  const fragment = toFragment({ ...app, releases: [fullRelease, plainRelease] as ListedApp['releases'] });
  const serialiser = [toFragment, releaseText, isExAppRelease, crlf, compareReleasesDescending, makeAppPart].map(
    (code) => code.toString(),
  );
  return createHash('sha256')
    .update(JSON.stringify([PART_LAYOUT, appSchema, releaseSchema, fragment, serialiser]))
    .digest('base64url')
    .slice(0, 16);
}

/** A part as saved for the next start and other nodes: with a checksum of everything in it. */
export interface SavedPart extends AppPart {
  readonly checksum: string;
}

/** SHA-256 of the part's fields, its bytes and its format: what a saved part must still hash to when taken. */
export function partChecksum(part: AppPart, format: string): string {
  const fields = JSON.stringify([
    format,
    part.id,
    part.listingVersion,
    part.enterpriseOnly,
    part.recentRatings,
    part.headLength,
    part.releases,
    part.whole.crc,
    part.whole.length,
  ]);
  return createHash('sha256').update(fields).update('\n').update(part.whole.deflated).digest('base64url');
}

const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']}');

/**
 * Which releases a listing keeps: apps.json and the platform listings an app's ordinary releases
 * (those a platform version satisfies), appapi_apps.json its ExApp releases. Every one, none, or a
 * cut named by their positions.
 */
export function releasesFor(
  part: AppPart,
  variant: Pick<ListingVariant, 'platform' | 'exApps'>,
): 'all' | 'none' | number[] {
  const { platform } = variant;
  const exApps = variant.exApps === true;
  const kept: number[] = [];
  const version = platform === undefined ? undefined : numericCore(platform);
  part.releases.forEach((release, index) => {
    if (release.exApp === exApps && (exApps || version === undefined || coreSatisfies(version, release.bounds)))
      kept.push(index);
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
