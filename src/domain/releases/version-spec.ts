/**
 * Version requirements (contract §1, reference §3.5). info.xml gives inclusive bounds such as
 * `min-version="9" max-version="11"`; the listings carry a semantic spec with an exclusive upper
 * bound (`>=9.0.0 <12.0.0`) and the raw spec as written (`>=9 <=11`), which Nextcloud servers parse.
 */

/** What a version attribute may be: 1 to 3 numeric parts (the raw grammar servers accept). */
export const VERSION_ATTRIBUTE_PATTERN = /^\d+(?:\.\d+){0,2}$/;

/** Semantic versions without build metadata, as the original store and Nextcloud servers use them. */
export const SEMVER_PATTERN = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$/;

export interface VersionRequirement {
  readonly versionSpec: string;
  readonly rawVersionSpec: string;
}

export const NO_REQUIREMENT: VersionRequirement = { versionSpec: '*', rawVersionSpec: '*' };

const parts = (version: string): number[] => version.split('.').map(Number);

/** `9` → `9.0.0`, `9.1` → `9.1.0`. */
export function padMinimum(version: string): string {
  const p = parts(version);
  while (p.length < 3) p.push(0);
  return p.join('.');
}

/** Inclusive maximum → exclusive semantic bound: `9` → `10.0.0`, `9.0` → `9.1.0`, `9.0.1` → `9.0.2`. */
export function exclusiveMaximum(version: string): string {
  const p = parts(version);
  const last = p.length - 1;
  p[last] = (p[last] ?? 0) + 1;
  while (p.length < 3) p.push(0);
  return p.join('.');
}

/** Both attributes already match VERSION_ATTRIBUTE_PATTERN (or are absent). */
export function versionRequirement(min: string | undefined, max: string | undefined): VersionRequirement {
  const semantic: string[] = [];
  const raw: string[] = [];
  if (min !== undefined) {
    semantic.push(`>=${padMinimum(min)}`);
    raw.push(`>=${min}`);
  }
  if (max !== undefined) {
    semantic.push(`<${exclusiveMaximum(max)}`);
    raw.push(`<=${max}`);
  }
  return semantic.length === 0 ? NO_REQUIREMENT : { versionSpec: semantic.join(' '), rawVersionSpec: raw.join(' ') };
}

/** Numeric comparison of versions with 1 to 3 numeric parts (missing parts are 0): `9.10` > `9.9`. */
export function compareNumericVersions(a: string, b: string): number {
  const pa = parts(padMinimum(a));
  const pb = parts(padMinimum(b));
  for (let i = 0; i < 3; i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}
