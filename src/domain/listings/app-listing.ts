import type { AppData, ReleaseData } from '../releases/release-data.ts';
import { compareReleaseVersions, parseSpec, satisfies } from '../versions/semantic-version.ts';
import type { SpecBounds } from '../versions/semantic-version.ts';
import type { RatingAggregate } from './rating-aggregate.ts';

/** A release as apps.json shows it (api.md, Release): what info.xml said, plus the archive's facts. */
export interface ListedRelease extends ReleaseData {
  readonly download: string;
  readonly created: string;
  readonly lastModified: string;
  readonly signature: string;
  readonly signatureDigest: string;
}

/** An app as apps.json shows it (api.md, App), with the flag that filters it. */
export interface ListedApp extends AppData, RatingAggregate {
  readonly isEnterpriseOnly: boolean;
  readonly created: string;
  readonly lastModified: string;
  readonly isFeatured: boolean;
  readonly certificate: string;
  readonly releases: readonly ListedRelease[];
}

/** One app serialised once per content version; listings are assembled from these by concatenation. */
export interface AppFragment {
  readonly enterpriseOnly: boolean;
  /** `{"id":…,…,"releases":[` */
  readonly head: string;
  readonly releases: ReadonlyArray<{ readonly bounds: SpecBounds; readonly json: string }>;
}

/** The certificate as registered, with CR LF line separators (contract §1). */
export function crlf(pem: string): string {
  return pem.replace(/\r\n?/g, '\n').replace(/\n/g, '\r\n');
}

/** Newest first: semantic precedence, a nightly above its version, then the latest modified. */
export function compareReleasesDescending(x: ListedRelease, y: ListedRelease): number {
  return compareReleaseVersions(y, x) || (x.lastModified < y.lastModified ? 1 : x.lastModified > y.lastModified ? -1 : 0);
}

const parsedBounds = new WeakMap<ListedRelease, SpecBounds>();

/**
 * The release's Nextcloud range as bounds, parsed once per release object: the pages' search
 * filter and version table ask for it on every request, and a snapshot's releases live as long
 * as the snapshot (the cache entry goes with them).
 */
export function platformBounds(release: ListedRelease): SpecBounds {
  let bounds = parsedBounds.get(release);
  if (bounds === undefined) {
    bounds = parseSpec(release.platformVersionSpec);
    parsedBounds.set(release, bounds);
  }
  return bounds;
}

export function toFragment(app: ListedApp): AppFragment {
  const { releases, isEnterpriseOnly, ...rest } = app;
  const head = JSON.stringify({ ...rest, certificate: crlf(app.certificate) });
  return {
    enterpriseOnly: isEnterpriseOnly,
    head: `${head.slice(0, -1)},"releases":[`,
    releases: [...releases].sort(compareReleasesDescending).map((release) => ({ bounds: platformBounds(release), json: JSON.stringify(release) })),
  };
}

export interface ListingVariant {
  readonly includeEnterprise: boolean;
  /** X.Y.Z: only the releases this platform version satisfies, and apps that have one. */
  readonly platform?: string;
}

/** apps.json and platform/{v}/apps.json, as bytes-ready JSON text. */
export function assembleAppListing(fragments: readonly AppFragment[], variant: ListingVariant): string {
  const parts: string[] = [];
  for (const fragment of fragments) {
    if (fragment.enterpriseOnly && !variant.includeEnterprise) continue;
    const platform = variant.platform;
    const releases = platform === undefined ? fragment.releases : fragment.releases.filter((r) => satisfies(platform, r.bounds));
    if (releases.length === 0) continue;
    parts.push(`${fragment.head}${releases.map((r) => r.json).join(',')}]}`);
  }
  return `[${parts.join(',')}]`;
}
