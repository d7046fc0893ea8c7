import { APP_ID_PATTERN, appIdProblem } from '../app-id.ts';
import type { AppData, Dependency, ReleaseData } from '../releases/release-data.ts';
import type { EnvironmentVariable, ExternalApp } from '../releases/external-app.ts';

/**
 * The upstream's apps.json and appapi_apps.json read as this store's own data (docs/mirror.md).
 * Every field is checked for its type and size, as anything from the network is: an app with a
 * malformed field is left out with the reason, and a document that is not a listing at all is
 * refused whole. Ratings are not taken (they are the upstream's users' opinions; this store's
 * users rate here). Certificates and signatures are kept exactly as given: Nextcloud servers
 * verify them against their own root.crt.
 */

export interface UpstreamRelease {
  readonly release: ReleaseData;
  /** Where the upstream says the archive is. */
  readonly download: string;
  /** As the upstream gives it (line breaks and spaces kept). */
  readonly signature: string;
  readonly signatureDigest: string;
  readonly created: string;
  readonly lastModified: string;
}

export interface UpstreamApp {
  readonly app: AppData;
  readonly certificate: string;
  readonly isFeatured: boolean;
  /** What the upstream says of an app that is over (issue 52; this store's additive fields, absent from the original's). */
  readonly status: UpstreamAppStatus;
  readonly created: string;
  readonly lastModified: string;
  readonly releases: readonly UpstreamRelease[];
}

export interface UpstreamListing {
  readonly apps: readonly UpstreamApp[];
  /** Apps left out, with why: `{app id or #index}: {problem}`. */
  readonly problems: readonly string[];
}

const MAX_TEXT = 1_000_000;
const MAX_ITEMS = 5_000;
const MAX_APPS = 100_000;

class Malformed extends Error {}

type Json = Record<string, unknown>;

const fail = (where: string, what: string): never => {
  throw new Malformed(`${where}: ${what}`);
};

function object(value: unknown, where: string): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(where, 'expected an object');
  return value as Json;
}

function text(value: unknown, where: string, fallback?: string): string {
  if (value === undefined && fallback !== undefined) return fallback;
  if (typeof value !== 'string') return fail(where, 'expected a string');
  if (value.length > MAX_TEXT) fail(where, `longer than ${MAX_TEXT} characters`);
  // Control characters other than tab and line breaks have no place in a listing (and PostgreSQL refuses NUL).
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  return value.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '');
}

function list(value: unknown, where: string, fallback?: unknown[]): unknown[] {
  if (value === undefined && fallback !== undefined) return fallback;
  if (!Array.isArray(value)) return fail(where, 'expected an array');
  if (value.length > MAX_ITEMS) fail(where, `more than ${MAX_ITEMS} items`);
  return value;
}

function record(value: unknown, where: string): [string, Json][] {
  if (value === undefined || (Array.isArray(value) && value.length === 0)) return [];
  const entries = Object.entries(object(value, where));
  if (entries.length > MAX_ITEMS) fail(where, `more than ${MAX_ITEMS} entries`);
  return entries.map(([key, item]) => {
    if (!/^[A-Za-z]{2,3}(?:[_-][A-Za-z0-9]{1,8}){0,3}$/.test(key))
      fail(`${where}.${key.slice(0, 40)}`, 'not a language code');
    return [key, object(item, `${where}.${key}`)];
  });
}

/** The store's timestamp form, six fractional digits: the upstream's own value when it has that form. */
export function upstreamTimestamp(value: unknown, where: string): string {
  const raw = text(value, where);
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?(?:Z|\+00:00)$/.exec(raw);
  if (match === null || Number.isNaN(Date.parse(`${match[1] ?? ''}Z`)))
    return fail(where, 'expected an ISO 8601 UTC time such as 2016-10-01T09:16:06.030994Z');
  return `${match[1] ?? ''}.${(match[2] ?? '').padEnd(6, '0')}Z`;
}

function webAddress(value: unknown, where: string): string {
  const raw = text(value, where, '');
  if (raw === '') return '';
  if (!/^https?:\/\/[^\s]+$/i.test(raw)) return fail(where, 'expected an http(s) URL or nothing');
  return raw;
}

function dependencies(value: unknown, where: string): Dependency[] {
  return list(value, where, []).map((item, index) => {
    const entry = object(item, `${where}[${index}]`);
    return {
      id: text(entry.id, `${where}[${index}].id`),
      versionSpec: text(entry.versionSpec, `${where}[${index}].versionSpec`, '*'),
      rawVersionSpec: text(entry.rawVersionSpec, `${where}[${index}].rawVersionSpec`, '*'),
    };
  });
}

/** appapi_apps.json's AppAPI fields back into `<external-app>`; null for an ordinary release. */
function externalApp(entry: Json, where: string): ExternalApp | null {
  if (entry.deployMethods === undefined) return null;
  const methods = list(entry.deployMethods, `${where}.deployMethods`);
  const docker = methods
    .map((m, i) => object(m, `${where}.deployMethods[${i}]`))
    .find((m) => m.installType === 'docker_install');
  if (docker === undefined) return null;
  let data: unknown = docker.installData;
  if (typeof data === 'string') {
    try {
      data = JSON.parse(data);
    } catch {
      fail(`${where}.deployMethods.installData`, 'not JSON');
    }
  }
  const install = object(data, `${where}.deployMethods.installData`);
  const variables: EnvironmentVariable[] = list(entry.environmentVariables, `${where}.environmentVariables`, []).map(
    (item, i) => {
      const variable = object(item, `${where}.environmentVariables[${i}]`);
      const fallback = variable.default;
      return {
        name: text(variable.name, `${where}.environmentVariables[${i}].name`),
        displayName: text(variable.displayName, `${where}.environmentVariables[${i}].displayName`, ''),
        description: text(variable.description, `${where}.environmentVariables[${i}].description`, ''),
        default:
          fallback === null || fallback === undefined
            ? null
            : text(fallback, `${where}.environmentVariables[${i}].default`),
      };
    },
  );
  return {
    isSystem: entry.aaIsSystem === true,
    dockerInstall: {
      registry: text(install.registry, `${where}.installData.registry`),
      image: text(install.image, `${where}.installData.image`),
      imageTag: text(install.image_tag, `${where}.installData.image_tag`),
    },
    scopes: list(entry.apiScopes, `${where}.apiScopes`, []).map((s, i) =>
      text(object(s, `${where}.apiScopes[${i}]`).scopeName, `${where}.apiScopes[${i}].scopeName`),
    ),
    environmentVariables: variables,
  };
}

function readRelease(value: unknown, where: string): UpstreamRelease {
  const entry = object(value, where);
  const version = text(entry.version, `${where}.version`);
  if (!/^[0-9][0-9A-Za-z.+-]{0,63}$/.test(version)) fail(`${where}.version`, 'not a version number');
  const here = `${where}(${version})`;
  const minIntSize = entry.minIntSize ?? 32;
  if (minIntSize !== 32 && minIntSize !== 64) fail(`${here}.minIntSize`, 'expected 32 or 64');
  const download = text(entry.download, `${here}.download`);
  if (!/^https:\/\/[^\s]+$/i.test(download)) fail(`${here}.download`, 'expected an https:// URL');
  return {
    release: {
      version,
      phpExtensions: dependencies(entry.phpExtensions, `${here}.phpExtensions`),
      databases: dependencies(entry.databases, `${here}.databases`),
      shellCommands: list(entry.shellCommands, `${here}.shellCommands`, []).map((c, i) =>
        text(c, `${here}.shellCommands[${i}]`),
      ),
      phpVersionSpec: text(entry.phpVersionSpec, `${here}.phpVersionSpec`, '*'),
      rawPhpVersionSpec: text(entry.rawPhpVersionSpec, `${here}.rawPhpVersionSpec`, '*'),
      platformVersionSpec: text(entry.platformVersionSpec, `${here}.platformVersionSpec`, '*'),
      rawPlatformVersionSpec: text(entry.rawPlatformVersionSpec, `${here}.rawPlatformVersionSpec`, '*'),
      minIntSize: minIntSize as number,
      isNightly: entry.isNightly === true,
      licenses: list(entry.licenses, `${here}.licenses`, []).map((l, i) => text(l, `${here}.licenses[${i}]`)),
      translations: Object.fromEntries(
        record(entry.translations, `${here}.translations`).map(([language, t]) => [
          language,
          { changelog: text(t.changelog, `${here}.translations.${language}.changelog`, '') },
        ]),
      ),
      externalApp: externalApp(entry, here),
    },
    download,
    signature: text(entry.signature, `${here}.signature`),
    signatureDigest: text(entry.signatureDigest, `${here}.signatureDigest`, 'sha512'),
    created: upstreamTimestamp(entry.created, `${here}.created`),
    lastModified: upstreamTimestamp(entry.lastModified ?? entry.created, `${here}.lastModified`),
  };
}

function readApp(value: unknown, where: string): UpstreamApp {
  const entry = object(value, where);
  const id = text(entry.id, `${where}.id`);
  if (id.length > 32 || !APP_ID_PATTERN.test(id)) fail(`${where}.id`, 'not an app id');
  const translations = record(entry.translations, `${id}.translations`).map(([language, t]) => [
    language,
    {
      name: text(t.name, `${id}.translations.${language}.name`, ''),
      summary: text(t.summary, `${id}.translations.${language}.summary`, ''),
      description: text(t.description, `${id}.translations.${language}.description`, ''),
    },
  ]);
  if (translations.length === 0) fail(`${id}.translations`, 'no language at all (the app has no name)');
  return {
    app: {
      id,
      categories: list(entry.categories, `${id}.categories`, []).map((c, i) => text(c, `${id}.categories[${i}]`)),
      authors: list(entry.authors, `${id}.authors`, []).map((a, i) => {
        const author = object(a, `${id}.authors[${i}]`);
        return {
          name: text(author.name, `${id}.authors[${i}].name`),
          mail: text(author.mail, `${id}.authors[${i}].mail`, ''),
          homepage: text(author.homepage, `${id}.authors[${i}].homepage`, ''),
        };
      }),
      userDocs: webAddress(entry.userDocs, `${id}.userDocs`),
      adminDocs: webAddress(entry.adminDocs, `${id}.adminDocs`),
      developerDocs: webAddress(entry.developerDocs, `${id}.developerDocs`),
      issueTracker: webAddress(entry.issueTracker, `${id}.issueTracker`),
      website: webAddress(entry.website, `${id}.website`),
      discussion: webAddress(entry.discussion, `${id}.discussion`),
      screenshots: list(entry.screenshots, `${id}.screenshots`, []).map((s, i) => {
        const shot = object(s, `${id}.screenshots[${i}]`);
        return {
          url: webAddress(shot.url, `${id}.screenshots[${i}].url`),
          smallThumbnail: webAddress(shot.smallThumbnail, `${id}.screenshots[${i}].smallThumbnail`),
        };
      }),
      translations: Object.fromEntries(translations),
    },
    certificate: text(entry.certificate, `${id}.certificate`),
    isFeatured: entry.isFeatured === true,
    status: upstreamStatus(entry),
    created: upstreamTimestamp(entry.created, `${id}.created`),
    lastModified: upstreamTimestamp(entry.lastModified ?? entry.created, `${id}.lastModified`),
    releases: list(entry.releases, `${id}.releases`).map((r, i) => readRelease(r, `${id}.releases[${i}]`)),
  };
}

export interface UpstreamAppStatus {
  readonly deprecated: { readonly reason: string; readonly successor: string } | null;
  readonly orphan: boolean;
  readonly retired: ReadonlyArray<{ readonly version: string; readonly nightly: boolean; readonly reason: string }>;
}

const short = (value: unknown): string => (typeof value === 'string' ? value.slice(0, 500) : '');

/** The status fields as this store lists them; anything malformed is read as not set. */
function upstreamStatus(entry: Record<string, unknown>): UpstreamAppStatus {
  const successor = short(entry['successor']);
  const retired = Array.isArray(entry['retiredReleases']) ? (entry['retiredReleases'] as unknown[]) : [];
  return {
    deprecated:
      entry['isDeprecated'] === true
        ? {
            reason: short(entry['deprecationReason']),
            successor: appIdProblem(successor) === null ? successor : '',
          }
        : null,
    orphan: entry['isOrphan'] === true,
    retired: retired.flatMap((r) => {
      if (typeof r !== 'object' || r === null) return [];
      const { version, isNightly, reason } = r as Record<string, unknown>;
      return typeof version === 'string' && version.length <= 64
        ? [
            {
              version,
              nightly: isNightly === true,
              reason: ['security', 'broken'].includes(String(reason)) ? String(reason) : 'other',
            },
          ]
        : [];
    }),
  };
}

/** Thrown when a document is not a listing at all: nothing of the sync is applied. */
export class UnusableDocument extends Error {}

/**
 * Reads apps.json (`exApps` false: ordinary releases only) or appapi_apps.json (`exApps` true:
 * only the releases with AppAPI deploy data; its ordinary ones are apps.json's).
 */
export function parseUpstreamListing(data: unknown, exApps: boolean): UpstreamListing {
  if (!Array.isArray(data)) throw new UnusableDocument('expected a JSON array of apps');
  if (data.length > MAX_APPS) throw new UnusableDocument(`more than ${MAX_APPS} apps`);
  const apps: UpstreamApp[] = [];
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const [index, value] of data.entries()) {
    try {
      const app = readApp(value, `#${index}`);
      if (seen.has(app.app.id)) throw new Malformed(`${app.app.id}: listed twice`);
      seen.add(app.app.id);
      const releases = app.releases.filter((r) => (r.release.externalApp !== null) === exApps);
      apps.push({ ...app, releases });
    } catch (error) {
      if (!(error instanceof Malformed)) throw error;
      problems.push(error.message);
    }
  }
  if (data.length > 0 && apps.length === 0) throw new UnusableDocument(`no app could be read (${problems[0] ?? ''})`);
  return { apps, problems };
}

/** apps.json's apps with appapi_apps.json's ExApp releases added (an app only there is taken from there). */
export function mergeListings(apps: UpstreamListing, exApps: UpstreamListing): UpstreamListing {
  const byId = new Map(apps.apps.map((app) => [app.app.id, app]));
  for (const app of exApps.apps) {
    if (app.releases.length === 0) continue;
    const known = byId.get(app.app.id);
    byId.set(app.app.id, known === undefined ? app : { ...known, releases: [...known.releases, ...app.releases] });
  }
  return {
    apps: [...byId.values()],
    problems: [...apps.problems, ...exApps.problems.map((p) => `appapi_apps.json ${p}`)],
  };
}
