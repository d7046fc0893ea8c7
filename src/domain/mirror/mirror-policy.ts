import type { PlatformRelease } from '../catalog/catalog.ts';
import {
  compareCores,
  compareReleaseVersions,
  isStable,
  parsePlatformVersion,
  parseSpec,
  satisfies,
} from '../versions/semantic-version.ts';
import type { UpstreamApp, UpstreamRelease } from './upstream-listing.ts';

/** What the operator takes from the upstream (APPSTORE_MIRROR_*, docs/mirror.md). */
export interface MirrorPolicy {
  /** latest: what servers install (the newest stable release per supported Nextcloud version); all: every release. */
  readonly releases: 'latest' | 'all';
  /** Only these apps (null: every app). */
  readonly onlyApps: readonly string[] | null;
  /** Never these apps. */
  readonly excludedApps: readonly string[] | null;
  /** Leave out releases that support no Nextcloud from this major version on. */
  readonly minPlatform: number | null;
  readonly nightlies: boolean;
  readonly exApps: boolean;
  /** Releases kept whatever the rest says: the ones installed now. */
  readonly keep: readonly { readonly appId: string; readonly version: string }[];
  /** A release that disappeared upstream is dropped at the next sync (else kept). */
  readonly dropRemoved: boolean;
}

/** What an operator who sets nothing but the root gets. */
export const DEFAULT_MIRROR_POLICY: MirrorPolicy = {
  releases: 'latest',
  onlyApps: null,
  excludedApps: null,
  minPlatform: null,
  nightlies: false,
  exApps: true,
  keep: [],
  dropRemoved: false,
};

export const releaseKey = (appId: string, version: string, nightly: boolean): string =>
  `${appId}@${version}${nightly ? ' (nightly)' : ''}`;

/** Why an app is not taken at all, or null when it is. */
export function appLeftOut(appId: string, policy: MirrorPolicy): string | null {
  if (policy.onlyApps !== null && !policy.onlyApps.includes(appId)) return 'not in APPSTORE_MIRROR_APPS';
  if (policy.excludedApps?.includes(appId) === true) return 'in APPSTORE_MIRROR_EXCLUDE_APPS';
  return null;
}

/** Whether the release installs on some Nextcloud from `major`.0.0 on (its upper bound is exclusive). */
function supportsFrom(release: UpstreamRelease, major: number): boolean {
  const { max } = parseSpec(release.release.platformVersionSpec);
  return max === null || compareCores(max, [major, 0, 0]) > 0;
}

const newest = (releases: readonly UpstreamRelease[]): UpstreamRelease | undefined =>
  [...releases].sort((a, b) => compareReleaseVersions(b.release, a.release))[0];

/**
 * The releases of one app a sync takes. `latest`: for each supported Nextcloud version (at or
 * above the minimum), the newest stable release that installs there, ordinary and ExApp apart;
 * with no supported version known, the newest stable release. Nightlies add the newest nightly.
 * `keep` entries are taken whatever the rest says (when the upstream still has them).
 */
export function chooseReleases(
  app: UpstreamApp,
  platforms: readonly PlatformRelease[],
  policy: MirrorPolicy,
): UpstreamRelease[] {
  const candidates = app.releases.filter(
    (r) =>
      (policy.exApps || r.release.externalApp === null) &&
      (policy.nightlies || !r.release.isNightly) &&
      (policy.minPlatform === null || supportsFrom(r, policy.minPlatform)),
  );
  const chosen = new Set<UpstreamRelease>();
  if (policy.releases === 'all') {
    for (const release of candidates) chosen.add(release);
  } else {
    const supported = platforms
      .filter((p) => p.isSupported)
      .map((p) => p.version)
      .filter(
        (version) => policy.minPlatform === null || (parsePlatformVersion(version)?.[0] ?? 0) >= policy.minPlatform,
      );
    for (const exApp of [false, true]) {
      const stable = candidates.filter(
        (r) => (r.release.externalApp !== null) === exApp && isStable(r.release.version, r.release.isNightly),
      );
      if (supported.length === 0) {
        const top = newest(stable);
        if (top !== undefined) chosen.add(top);
      }
      for (const version of supported) {
        const top = newest(stable.filter((r) => satisfies(version, parseSpec(r.release.platformVersionSpec))));
        if (top !== undefined) chosen.add(top);
      }
    }
    const nightly = newest(candidates.filter((r) => r.release.isNightly));
    if (nightly !== undefined) chosen.add(nightly);
  }
  for (const release of app.releases) {
    if (policy.keep.some((k) => k.appId === app.app.id && k.version === release.release.version)) chosen.add(release);
  }
  return app.releases.filter((r) => chosen.has(r));
}
