import { said } from '../../i18n/said.ts';
import type { Said } from '../../i18n/said.ts';
import { AppError } from '../../errors.ts';
import { APP_ID_PATTERN } from '../app-id.ts';
import type { ListedApp, ListedRelease } from '../listings/app-listing.ts';
import {
  compareReleaseVersions,
  compareSemanticVersions,
  coreSatisfies,
  isStable,
  parsePlatformVersion,
  parseSemanticVersion,
  parseSpec,
} from '../versions/semantic-version.ts';
import type { VersionCore } from '../versions/semantic-version.ts';

/**
 * The upgrade planner (issue 54 §4): an administrator pastes `occ app:list --output=json` and
 * names the Nextcloud version to upgrade to; for each app, the release to take there (or why
 * there is none) and the changelogs from the installed version to it, combined. Nothing pasted
 * is kept.
 */
export interface InstalledApp {
  readonly id: string;
  readonly version: string;
  readonly enabled: boolean;
}

export const MAX_PLANNED_APPS = 1000;

function refuse(field: string, message: Said): AppError {
  return new AppError('invalid_request', said`Cannot plan the upgrade: ${message}.`, { [field]: [message] });
}

/** `1.1.0 (installed 1.0.0)`: the code on disk is newer than what is installed (an upgrade is pending): the installed one counts. */
const PENDING_UPGRADE = /^\S+ \(installed (\S+)\)$/;

/** An app's version as occ prints it: a string (maybe with a pending upgrade), an object with `version`; '' when occ gives none (`true`, `null`). */
function versionOf(value: unknown): string | null {
  if (value === true || value === null) return '';
  const text =
    typeof value === 'string'
      ? value
      : typeof value === 'object' && typeof (value as { version?: unknown }).version === 'string'
        ? (value as { version: string }).version
        : null;
  if (text === null || text.length > 60) return null;
  return PENDING_UPGRADE.exec(text.trim())?.[1] ?? text.trim();
}

/**
 * The apps of `occ app:list --output=json`: `{"enabled": {"id": "version", …}, "disabled": {…}}`,
 * as Nextcloud prints it: an empty group is `[]` (PHP's empty array), a disabled app may read
 * `1.1.0 (installed 1.0.0)`, or have no version (`true`, `null`); values may also be objects with
 * a `version`, as `--output=json_pretty` of some versions give.
 */
export function installedApps(list: unknown): InstalledApp[] {
  if (typeof list !== 'object' || list === null || Array.isArray(list))
    throw refuse('apps', said`paste the output of occ app:list --output=json: an object with "enabled" and "disabled"`);
  const groups = list as Record<string, unknown>;
  if (!('enabled' in groups) && !('disabled' in groups))
    throw refuse(
      'apps',
      said`the pasted object has neither "enabled" nor "disabled": is it the output of occ app:list --output=json?`,
    );
  const apps: InstalledApp[] = [];
  for (const [group, enabled] of [
    ['enabled', true],
    ['disabled', false],
  ] as const) {
    const entries = groups[group] ?? {};
    if (Array.isArray(entries) && entries.length === 0) continue;
    if (typeof entries !== 'object' || entries === null || Array.isArray(entries))
      throw refuse('apps', said`"${group}" is not an object of app ids and versions`);
    for (const [id, value] of Object.entries(entries as Record<string, unknown>)) {
      const version = versionOf(value);
      if (version === null)
        throw refuse('apps', said`the version of ${id.slice(0, 40)} in "${group}" is not a version string`);
      // Ids this store cannot hold (shipped apps have ordinary ids; anything else is noise) are kept as they are.
      apps.push({ id: id.slice(0, 64), version, enabled });
    }
  }
  if (apps.length > MAX_PLANNED_APPS) throw refuse('apps', said`at most ${MAX_PLANNED_APPS} apps at once`);
  return apps;
}

/** The JSON of what was pasted: occ may print warnings before it, which are skipped; null when there is none. */
export function pastedJson(text: string): unknown {
  const start = text.indexOf('{');
  if (start < 0) return null;
  try {
    return JSON.parse(text.slice(start)) as unknown;
  } catch {
    return null;
  }
}

export type NoReleaseWhy =
  | { readonly kind: 'no-stable' }
  | { readonly kind: 'none-fits'; readonly newest: string; readonly needs: string }
  | { readonly kind: 'installed-newer'; readonly best: string };

export type PlannedApp =
  | {
      readonly id: string;
      readonly installed: string;
      readonly enabled: boolean;
      readonly status: 'not-listed';
      readonly reason: string;
    }
  | {
      readonly id: string;
      readonly installed: string;
      readonly enabled: boolean;
      readonly status: 'no-release';
      readonly reason: string;
      /** Why, as facts the website words in the visitor's language (the API gives `reason`). */
      readonly why: NoReleaseWhy;
      readonly isExApp: boolean;
    }
  | {
      readonly id: string;
      readonly installed: string;
      readonly enabled: boolean;
      readonly status: 'up-to-date' | 'update';
      readonly isExApp: boolean;
      /** The release to take on the target version (the installed one when it is the newest there). */
      readonly release: { readonly version: string; readonly download: string; readonly platformVersionSpec: string };
      /** The changelogs of the releases after the installed version, up to the one to take, newest first. */
      readonly changelogs: ReadonlyArray<{
        readonly version: string;
        readonly changelog: string;
        readonly language: string;
      }>;
    };

export interface UpgradePlan {
  readonly nextcloud: string;
  readonly apps: readonly PlannedApp[];
}

/** The target as `33`, `33.0` or `33.0.1`: the release core its specs are checked against. */
export function targetVersion(text: string): VersionCore {
  const parts = text.trim().split('.');
  while (parts.length < 3) parts.push('0');
  const core = parsePlatformVersion(parts.join('.'));
  if (core === null)
    throw refuse('nextcloud', said`'${text.slice(0, 20)}' is not a Nextcloud version such as 33 or 33.0.1`);
  return core;
}

/** A release's changelog in `language`, else English, with the language it is in. */
function changelogOf(
  release: ListedRelease,
  language: string,
): { readonly changelog: string; readonly language: string } {
  const own = (release.translations[language]?.changelog ?? '').trim();
  return own !== ''
    ? { changelog: own, language }
    : { changelog: (release.translations['en']?.changelog ?? '').trim(), language: 'en' };
}

/** Whether `a` comes after `b`; false when either is not a version (a shipped app's may not be). */
function newer(a: string, b: string): boolean {
  const x = parseSemanticVersion(a);
  const y = parseSemanticVersion(b);
  return x !== null && y !== null && compareSemanticVersions(x, y) > 0;
}

/** The plan for each installed app, from the store's listings of those apps. */
export function planUpgrade(
  installed: readonly InstalledApp[],
  target: VersionCore,
  listed: ReadonlyMap<string, ListedApp>,
  language = 'en',
): UpgradePlan {
  const label = target.join('.');
  const apps = installed.map((app): PlannedApp => {
    const base = { id: app.id, installed: app.version, enabled: app.enabled };
    const listing = APP_ID_PATTERN.test(app.id) ? listed.get(app.id) : undefined;
    if (listing === undefined)
      return {
        ...base,
        status: 'not-listed',
        reason: 'This store does not list it: it ships with Nextcloud, or comes from elsewhere.',
      };
    // Newest first, once: what fits the target, the newest of all, and the changes come from this order.
    const stable = listing.releases
      .filter((release) => isStable(release.version, release.isNightly))
      .sort((a, b) => compareReleaseVersions(b, a));
    const isExApp = listing.releases.some((release) => release.aaIsSystem !== undefined);
    const best = stable.find((release) => coreSatisfies(target, parseSpec(release.platformVersionSpec)));
    if (best === undefined) {
      const newest = stable[0];
      return {
        ...base,
        status: 'no-release',
        isExApp,
        why:
          newest === undefined
            ? { kind: 'no-stable' }
            : { kind: 'none-fits', newest: newest.version, needs: newest.rawPlatformVersionSpec },
        reason:
          newest === undefined
            ? 'It has no stable release.'
            : `No release supports Nextcloud ${label} yet; the newest, ${newest.version}, needs ${newest.rawPlatformVersionSpec}. Disable it before upgrading, or wait.`,
      };
    }
    if (newer(app.version, best.version))
      return {
        ...base,
        status: 'no-release',
        isExApp,
        why: { kind: 'installed-newer', best: best.version },
        reason: `The installed ${app.version} is newer than the newest release for Nextcloud ${label} (${best.version}): keep it only if it supports ${label}.`,
      };
    // No version known (occ printed none): the release to take, with no changes to list.
    const update = app.version === '' || newer(best.version, app.version);
    // Every release after the installed one up to the one to take, whatever it supports: what changed.
    const changelogs = update
      ? stable
          .filter((release) => newer(release.version, app.version) && !newer(release.version, best.version))
          .map((release) => ({ version: release.version, ...changelogOf(release, language) }))
          .filter((entry) => entry.changelog !== '')
      : [];
    return {
      ...base,
      status: update ? 'update' : 'up-to-date',
      isExApp,
      release: { version: best.version, download: best.download, platformVersionSpec: best.rawPlatformVersionSpec },
      changelogs,
    };
  });
  return { nextcloud: label, apps };
}

/** `POST /api/v1/upgrade-plan` and the planner page: the pasted list, planned from the catalogue's listings. */
export async function upgradePlan(
  input: { readonly apps: unknown; readonly nextcloud: string },
  catalog: { details(appIds: readonly string[]): Promise<ReadonlyMap<string, { readonly app: ListedApp }>> },
  language = 'en',
): Promise<UpgradePlan> {
  const target = targetVersion(input.nextcloud);
  const installed = installedApps(input.apps);
  const ids = [...new Set(installed.map((app) => app.id).filter((id) => APP_ID_PATTERN.test(id)))];
  const details = await catalog.details(ids);
  const listed = new Map([...details].map(([id, entry]) => [id, entry.app]));
  return planUpgrade(installed, target, listed, language);
}
