/**
 * Versions, in one place (contract §1, reference §3.5 and §3.6): the shapes the store accepts,
 * semantic precedence, the requirements info.xml expresses and the specs the listings carry, and
 * whether a platform version satisfies a spec.
 */

import { remember } from '../bounded-map.ts';

/** Semantic versions without build metadata, as the original store and Nextcloud servers use them. */
export const SEMVER_PATTERN = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$/;

/** A platform release: `X.Y.Z`, digits only (each part at most six digits). */
export const PLATFORM_VERSION_PATTERN = /^(0|[1-9]\d{0,5})\.(0|[1-9]\d{0,5})\.(0|[1-9]\d{0,5})$/;

/** What an info.xml version attribute may be: 1 to 3 numeric parts (the raw grammar servers accept). */
export const VERSION_ATTRIBUTE_PATTERN = /^\d+(?:\.\d+){0,2}$/;

/** Major, minor and patch. */
export type VersionCore = readonly [number, number, number];

export interface SemanticVersion {
  readonly core: VersionCore;
  /** The dot-separated pre-release identifiers; empty for a release. */
  readonly prerelease: readonly string[];
}

/** A semantic version, or null when the text is not one. */
export function parseSemanticVersion(text: string): SemanticVersion | null {
  const known = parsedVersions.get(text);
  if (known !== undefined) return known;
  const match = SEMVER_PATTERN.exec(text);
  const parsed =
    match === null
      ? null
      : Object.freeze({
          core: Object.freeze([Number(match[1]), Number(match[2]), Number(match[3])] as const),
          prerelease: Object.freeze(match[4] === undefined ? [] : match[4].split('.')),
        });
  remember(parsedVersions, text, parsed, TEXTS_KEPT);
  return parsed;
}

/**
 * Versions and specs already read, by their text: a render sorts every app's releases (each
 * version compared several times) and reads every release's spec, and the texts repeat. Before,
 * parsing them again was a sixth of what a first render on a new database allocated.
 */
const parsedVersions = new Map<string, SemanticVersion | null>();
const parsedSpecs = new Map<string, SpecBounds>();

/** Bounded: a catalogue has far fewer distinct texts; past the bound the map starts again. */
const TEXTS_KEPT = 10_000;

/** A platform release version's parts, or null when it is not `X.Y.Z`. */
export function parsePlatformVersion(text: string): VersionCore | null {
  const match = PLATFORM_VERSION_PATTERN.exec(text);
  return match === null ? null : [Number(match[1]), Number(match[2]), Number(match[3])];
}

/** 1 to 3 numeric parts, missing ones 0 (`9` → 9.0.0). No pattern check: callers have checked. */
export function numericCore(text: string): VersionCore {
  const [a = 0, b = 0, c = 0] = text.split(/[.-]/, 3).map(Number);
  return [a, b, c];
}

export function compareCores(a: VersionCore, b: VersionCore): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** Numeric comparison of versions with 1 to 3 numeric parts (missing parts are 0): `9.10` > `9.9`. */
export function compareNumericVersions(a: string, b: string): number {
  return compareCores(numericCore(a), numericCore(b));
}

function compareIdentifiers(a: string, b: string): number {
  const numeric = /^\d+$/;
  if (numeric.test(a) && numeric.test(b)) return Number(a) - Number(b);
  if (numeric.test(a)) return -1;
  if (numeric.test(b)) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Semantic precedence (semver.org §11): a pre-release ranks below its release. */
export function compareSemanticVersions(a: SemanticVersion, b: SemanticVersion): number {
  const core = compareCores(a.core, b.core);
  if (core !== 0) return core;
  if (a.prerelease.length === 0 || b.prerelease.length === 0) return b.prerelease.length - a.prerelease.length;
  for (let i = 0; i < Math.min(a.prerelease.length, b.prerelease.length); i++) {
    const order = compareIdentifiers(a.prerelease[i] ?? '', b.prerelease[i] ?? '');
    if (order !== 0) return order;
  }
  return a.prerelease.length - b.prerelease.length;
}

/**
 * Release precedence as the listings order releases: semantic precedence, then a nightly above
 * the release of the same version. Versions that do not parse rank lowest.
 */
export function compareReleaseVersions(
  a: { version: string; isNightly: boolean },
  b: { version: string; isNightly: boolean },
): number {
  const x = parseSemanticVersion(a.version);
  const y = parseSemanticVersion(b.version);
  if (x === null || y === null) return (x === null ? 0 : 1) - (y === null ? 0 : 1);
  return compareSemanticVersions(x, y) || Number(a.isNightly) - Number(b.isNightly);
}

/** Stable: not nightly, no pre-release part. */
export function isStable(version: string, nightly: boolean): boolean {
  return !nightly && !version.includes('-');
}

// Requirements: info.xml gives inclusive bounds such as `min-version="9" max-version="11"`; the
// listings carry a semantic spec with an exclusive upper bound (`>=9.0.0 <12.0.0`) and the raw
// spec as written (`>=9 <=11`), which Nextcloud servers parse.

export interface VersionRequirement {
  readonly versionSpec: string;
  readonly rawVersionSpec: string;
}

export const NO_REQUIREMENT: VersionRequirement = { versionSpec: '*', rawVersionSpec: '*' };

/** `9` → `9.0.0`, `9.1` → `9.1.0`. */
export function padMinimum(version: string): string {
  return numericCore(version).join('.');
}

/** Inclusive maximum → exclusive semantic bound: `9` → `10.0.0`, `9.0` → `9.1.0`, `9.0.1` → `9.0.2`. */
export function exclusiveMaximum(version: string): string {
  const parts = version.split('.').map(Number);
  const last = parts.length - 1;
  parts[last] = (parts[last] ?? 0) + 1;
  return padMinimum(parts.join('.'));
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

/** A semantic spec of the contract's grammar (`*`, `>=X.Y.Z`, `<X.Y.Z`, `>=X.Y.Z <X.Y.Z`) as bounds. */
export interface SpecBounds {
  readonly min: VersionCore | null;
  /** Exclusive. */
  readonly max: VersionCore | null;
}

export function parseSpec(spec: string): SpecBounds {
  const known = parsedSpecs.get(spec);
  if (known !== undefined) return known;
  let min: VersionCore | null = null;
  let max: VersionCore | null = null;
  for (const token of spec.trim().split(/\s+/)) {
    if (token.startsWith('>=')) min = numericCore(token.slice(2));
    else if (token.startsWith('<')) max = numericCore(token.slice(1));
  }
  const bounds = internBounds({ min, max });
  remember(parsedSpecs, spec, bounds, TEXTS_KEPT);
  return bounds;
}

/** One object per distinct range (a catalogue has a few hundred; its releases, tens of thousands). */
const knownBounds = new Map<string, SpecBounds>();

/** The shared object for these bounds: what the listings keep for every release of every app. */
export function internBounds(bounds: SpecBounds): SpecBounds {
  const key = `${bounds.min?.join('.') ?? ''}-${bounds.max?.join('.') ?? ''}`;
  const known = knownBounds.get(key);
  if (known !== undefined) return known;
  const frozen: SpecBounds = Object.freeze({
    min: bounds.min === null ? null : Object.freeze([...bounds.min] as const),
    max: bounds.max === null ? null : Object.freeze([...bounds.max] as const),
  });
  remember(knownBounds, key, frozen, TEXTS_KEPT);
  return frozen;
}

/** Whether a platform version satisfies a spec: the filter of platform/{v}/apps.json. */
export function satisfies(version: string, bounds: SpecBounds): boolean {
  return coreSatisfies(numericCore(version), bounds);
}

/** `satisfies` for a version already read (a search compares one version with every app's ranges). */
export function coreSatisfies(version: VersionCore, bounds: SpecBounds): boolean {
  return (
    (bounds.min === null || compareCores(version, bounds.min) >= 0) &&
    (bounds.max === null || compareCores(version, bounds.max) < 0)
  );
}
