/** Stable: not nightly, no pre-release part. */
export function isStable(version: string, nightly: boolean): boolean {
  return !nightly && !version.includes('-');
}

/** Compares stable versions (three numeric parts). */
export function compareStable(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * Contract §6 step 6: the app-level data follows a release when it is the latest — stable and at
 * least every other stable release of the app — or when the app has no stable release yet.
 * `otherVersions` are the versions of the app's other non-nightly releases.
 */
export function isLatestRelease(version: string, nightly: boolean, otherVersions: readonly string[]): boolean {
  const otherStable = otherVersions.filter((v) => isStable(v, false));
  if (otherStable.length === 0) return true;
  return isStable(version, nightly) && otherStable.every((other) => compareStable(version, other) >= 0);
}
