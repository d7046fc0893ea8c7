import { APP_ID_PATTERN } from '../domain/app-id.ts';
import { DEFAULT_MIRROR_POLICY } from '../domain/mirror/mirror-policy.ts';
import type { MirrorPolicy } from '../domain/mirror/mirror-policy.ts';
import { envReader, parseSwitch, readableFile } from './values.ts';
import type { Env } from './values.ts';

/**
 * Mirror mode's configuration (docs/mirror.md): the upstream store this one follows, the
 * code-signing root its apps chain to, and what to take from it. Mirroring is on when
 * APPSTORE_MIRROR_ROOT_CERT is set: without the upstream's root nothing could be verified.
 */
export interface MirrorSettings {
  /** The upstream's API root, without the trailing slash: https://apps.nextcloud.com/api/v1. */
  readonly upstream: string;
  /** PEM file: the root (and intermediates) Nextcloud servers ship as resources/codesigning/root.crt. */
  readonly rootCertFile: string;
  /** PEM file: the upstream authority's revocation list (resources/codesigning/root.crl); null: none. */
  readonly crlFile: string | null;
  readonly policy: MirrorPolicy;
  /** Minutes between scheduled syncs on the node holding the housekeeping lease; 0: only by hand. */
  readonly intervalMinutes: number;
}

export const DEFAULT_UPSTREAM = 'https://apps.nextcloud.com/api/v1';

export const MIRROR_VARIABLES = [
  'APPSTORE_MIRROR_UPSTREAM',
  'APPSTORE_MIRROR_ROOT_CERT',
  'APPSTORE_MIRROR_CRL',
  'APPSTORE_MIRROR_RELEASES',
  'APPSTORE_MIRROR_APPS',
  'APPSTORE_MIRROR_EXCLUDE_APPS',
  'APPSTORE_MIRROR_MIN_PLATFORM',
  'APPSTORE_MIRROR_NIGHTLIES',
  'APPSTORE_MIRROR_EXAPPS',
  'APPSTORE_MIRROR_KEEP',
  'APPSTORE_MIRROR_DROP_REMOVED',
  'APPSTORE_MIRROR_INTERVAL_MINUTES',
] as const;

export function parseMirror(env: Env, cwd: string, problems: string[]): MirrorSettings | null {
  const get = envReader(env);
  const rootRaw = get('APPSTORE_MIRROR_ROOT_CERT');
  if (rootRaw === undefined) {
    const stray = MIRROR_VARIABLES.filter((name) => name !== 'APPSTORE_MIRROR_ROOT_CERT' && get(name) !== undefined);
    if (stray.length > 0)
      problems.push(
        `${stray.join(', ')}: mirror mode needs APPSTORE_MIRROR_ROOT_CERT (the upstream's code-signing root, root.crt) as well`,
      );
    return null;
  }
  const rootCertFile = readableFile('APPSTORE_MIRROR_ROOT_CERT', rootRaw, cwd, problems);
  const crlFile = readableFile('APPSTORE_MIRROR_CRL', get('APPSTORE_MIRROR_CRL'), cwd, problems);
  const upstream = parseUpstream(get('APPSTORE_MIRROR_UPSTREAM'), problems);

  const releasesRaw = (get('APPSTORE_MIRROR_RELEASES') ?? DEFAULT_MIRROR_POLICY.releases).toLowerCase();
  if (releasesRaw !== 'latest' && releasesRaw !== 'all')
    problems.push(`APPSTORE_MIRROR_RELEASES: '${releasesRaw.slice(0, 40)}' is not latest or all`);
  const onlyApps = parseAppIds('APPSTORE_MIRROR_APPS', get('APPSTORE_MIRROR_APPS'), problems);
  const excludedApps = parseAppIds('APPSTORE_MIRROR_EXCLUDE_APPS', get('APPSTORE_MIRROR_EXCLUDE_APPS'), problems);
  if (onlyApps !== null && excludedApps !== null)
    problems.push(
      'APPSTORE_MIRROR_APPS and APPSTORE_MIRROR_EXCLUDE_APPS: use one of them (an allow-list or a deny-list)',
    );
  const minPlatformRaw = get('APPSTORE_MIRROR_MIN_PLATFORM');
  let minPlatform: number | null = null;
  if (minPlatformRaw !== undefined) {
    if (/^\d{1,4}$/.test(minPlatformRaw)) minPlatform = Number(minPlatformRaw);
    else
      problems.push(
        `APPSTORE_MIRROR_MIN_PLATFORM: '${minPlatformRaw.slice(0, 40)}' is not a Nextcloud major version such as 30`,
      );
  }
  const keep: { appId: string; version: string }[] = [];
  for (const entry of (get('APPSTORE_MIRROR_KEEP') ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '')) {
    const match = /^([^@\s]+)@([0-9A-Za-z.+-]{1,64})$/.exec(entry);
    if (match === null || !APP_ID_PATTERN.test(match[1] ?? ''))
      problems.push(`APPSTORE_MIRROR_KEEP: '${entry.slice(0, 80)}' is not app@version (such as news@25.1.0)`);
    else keep.push({ appId: match[1] ?? '', version: match[2] ?? '' });
  }
  const intervalRaw = get('APPSTORE_MIRROR_INTERVAL_MINUTES');
  let intervalMinutes = 60;
  if (intervalRaw !== undefined) {
    if (/^\d{1,6}$/.test(intervalRaw) && Number(intervalRaw) <= 100_000) intervalMinutes = Number(intervalRaw);
    else
      problems.push(
        `APPSTORE_MIRROR_INTERVAL_MINUTES: '${intervalRaw.slice(0, 40)}' is not a whole number of minutes from 0 (only by hand) to 100000`,
      );
  }
  return {
    upstream,
    rootCertFile: rootCertFile ?? '',
    crlFile,
    intervalMinutes,
    policy: {
      releases: releasesRaw === 'all' ? 'all' : 'latest',
      onlyApps,
      excludedApps,
      minPlatform,
      nightlies: parseSwitch(
        'APPSTORE_MIRROR_NIGHTLIES',
        get('APPSTORE_MIRROR_NIGHTLIES'),
        problems,
        DEFAULT_MIRROR_POLICY.nightlies,
      ),
      exApps: parseSwitch(
        'APPSTORE_MIRROR_EXAPPS',
        get('APPSTORE_MIRROR_EXAPPS'),
        problems,
        DEFAULT_MIRROR_POLICY.exApps,
      ),
      keep,
      dropRemoved: parseSwitch(
        'APPSTORE_MIRROR_DROP_REMOVED',
        get('APPSTORE_MIRROR_DROP_REMOVED'),
        problems,
        DEFAULT_MIRROR_POLICY.dropRemoved,
      ),
    },
  };
}

function parseUpstream(raw: string | undefined, problems: string[]): string {
  if (raw === undefined) return DEFAULT_UPSTREAM;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    problems.push(
      `APPSTORE_MIRROR_UPSTREAM: '${raw.slice(0, 200)}' is not a URL; expected the upstream's API root, such as ${DEFAULT_UPSTREAM}`,
    );
    return DEFAULT_UPSTREAM;
  }
  if (url.protocol !== 'https:' || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    problems.push(
      `APPSTORE_MIRROR_UPSTREAM: expected an https:// address without query, fragment or credentials, such as ${DEFAULT_UPSTREAM}`,
    );
    return DEFAULT_UPSTREAM;
  }
  return url.href.replace(/\/+$/, '');
}

function parseAppIds(name: string, raw: string | undefined, problems: string[]): readonly string[] | null {
  if (raw === undefined) return null;
  const ids = raw
    .split(',')
    .map((id) => id.trim())
    .filter((id) => id !== '');
  const bad = ids.filter((id) => !APP_ID_PATTERN.test(id));
  if (bad.length > 0 || ids.length === 0) {
    problems.push(
      `${name}: expected app ids separated by commas, such as news,notes${bad.length > 0 ? ` ('${bad[0]?.slice(0, 80) ?? ''}' is not an app id)` : ''}`,
    );
    return null;
  }
  return ids;
}
