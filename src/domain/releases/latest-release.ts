import { compareNumericVersions, isStable } from '../versions/semantic-version.ts';

/**
 * Contract §6 step 6: the app-level data follows a release when it is the latest — stable and at
 * least every other stable release of the app — or when the app has no stable release yet.
 * `otherVersions` are the versions of the app's other non-nightly releases.
 */
export function isLatestRelease(version: string, nightly: boolean, otherVersions: readonly string[]): boolean {
  const otherStable = otherVersions.filter((v) => isStable(v, false));
  if (otherStable.length === 0) return true;
  return isStable(version, nightly) && otherStable.every((other) => compareNumericVersions(version, other) >= 0);
}
