import type { Provenance } from '../accounts/token-scopes.ts';
import type { appApiFields } from '../releases/external-app.ts';
import type { AppData, ReleaseData } from '../releases/release-data.ts';
import { compareReleaseVersions, parseSpec } from '../versions/semantic-version.ts';
import type { SpecBounds } from '../versions/semantic-version.ts';
import type { RatingAggregate } from './rating-aggregate.ts';

/**
 * A release as apps.json shows it (api.md, Release): what info.xml said, plus the archive's facts.
 * An ExApp's release (appapi_apps.json only) has the AppAPI fields too; their presence is what
 * tells the two apart.
 */
export interface ListedRelease extends Omit<ReleaseData, 'externalApp'>, Partial<AppApiFields> {
  readonly download: string;
  readonly created: string;
  readonly lastModified: string;
  readonly signature: string;
  readonly signatureDigest: string;
  /** Where the release was built and published from, when it came through trusted publishing (issue 53). */
  readonly provenance?: Provenance;
}

export type AppApiFields = ReturnType<typeof appApiFields>;

/**
 * A release whose listing text was written when it was saved (storage keeps it with the release,
 * in a format of its own): the text, and what the listings order and choose releases by. A render
 * takes the text as it is, where it would read and serialise the release's fields.
 */
export interface WrittenRelease {
  readonly version: string;
  readonly isNightly: boolean;
  readonly lastModified: string;
  readonly platformVersionSpec: string;
  readonly exApp: boolean;
  /** releaseText of the release (its JSON in the listings), in UTF-8. */
  readonly writtenText: Uint8Array;
}

/** A release as the listing engine reads it: its fields, or its text written with it. */
export type ListingRelease = ListedRelease | WrittenRelease;

/** The release's JSON in the app listings. */
export function releaseText(release: ListedRelease): string {
  return JSON.stringify(release);
}

/** True for an ExApp's release: listed in appapi_apps.json, not in apps.json. */
export const isExAppRelease = (release: ListingRelease): boolean =>
  'writtenText' in release ? release.exApp : release.aaIsSystem !== undefined;

/** An app as apps.json shows it (api.md, App), with the flag that filters it. */
export interface ListedApp extends AppData, RatingAggregate, AppStatusFields {
  readonly isEnterpriseOnly: boolean;
  readonly created: string;
  readonly lastModified: string;
  readonly isFeatured: boolean;
  readonly certificate: string;
  readonly releases: readonly ListedRelease[];
}

/**
 * What the listings add about an app that is over (issue 52): present only where set, so that an
 * app that is not deprecated, orphaned or with retired releases is listed exactly as before.
 */
export interface AppStatusFields {
  readonly isDeprecated?: true;
  readonly deprecationReason?: string;
  /** The app to use instead. */
  readonly successor?: string;
  readonly isOrphan?: true;
  /** Releases no longer offered (not in `releases`): mirrors retire them too. */
  readonly retiredReleases?: ReadonlyArray<{
    readonly version: string;
    readonly isNightly: boolean;
    readonly reason: string;
  }>;
}

/** An app as the listing engine reads it: its releases with their fields or their written texts. */
export interface ListingApp extends Omit<ListedApp, 'releases'> {
  readonly releases: readonly ListingRelease[];
}

/** One app serialised: its text up to the releases, and each release (newest first) with its Nextcloud range. */
export interface AppFragment {
  readonly enterpriseOnly: boolean;
  /** `{"id":…,…,"releases":[` */
  readonly head: string;
  /** Each release's JSON: made now (a string), or written with the release (UTF-8). */
  readonly releases: ReadonlyArray<{
    readonly bounds: SpecBounds;
    readonly json: string | Uint8Array;
    readonly exApp: boolean;
  }>;
}

/** The certificate as registered, with CR LF line separators (contract §1). */
export function crlf(pem: string): string {
  return pem.replace(/\r\n?/g, '\n').replace(/\n/g, '\r\n');
}

/** Newest first: semantic precedence, a nightly above its version, then the latest modified. */
export function compareReleasesDescending(x: ListingRelease, y: ListingRelease): number {
  return (
    compareReleaseVersions(y, x) || (x.lastModified < y.lastModified ? 1 : x.lastModified > y.lastModified ? -1 : 0)
  );
}

/**
 * The release's Nextcloud range as bounds: the pages' search filter and version table ask for it
 * on every request. parseSpec keeps what it read by the spec's text, so this is a lookup.
 */
export function platformBounds(release: Pick<ListedRelease, 'platformVersionSpec'>): SpecBounds {
  return parseSpec(release.platformVersionSpec);
}

export function toFragment(app: ListingApp): AppFragment {
  const { releases, isEnterpriseOnly, ...rest } = app;
  const head = JSON.stringify({ ...rest, certificate: crlf(app.certificate) });
  return {
    enterpriseOnly: isEnterpriseOnly,
    head: `${head.slice(0, -1)},"releases":[`,
    releases: [...releases].sort(compareReleasesDescending).map((release) => ({
      bounds: platformBounds(release),
      json: 'writtenText' in release ? release.writtenText : releaseText(release),
      exApp: isExAppRelease(release),
    })),
  };
}

/** Which app listing: apps.json with or without enterprise-only apps, platform/{v}/apps.json, or appapi_apps.json. */
export interface ListingVariant {
  readonly includeEnterprise: boolean;
  /** X.Y.Z: only the releases this platform version satisfies, and apps that have one. */
  readonly platform?: string;
  /** appapi_apps.json: only ExApp releases (of every platform), and apps that have one; the others list none of them. */
  readonly exApps?: boolean;
}
