import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { PUBLISH_SLOT_LIMITS } from '../domain/releases/publish-slots.ts';
import { DEFAULT_PASSWORD_COST, PASSWORD_COST_RANGE } from '../domain/accounts/password-hash.ts';
import type { DatabaseTarget } from './database.ts';
import { parseDatabaseUrl } from './database.ts';
import type { ConnectionSettings } from './connections.ts';
import {
  EXTERNAL_LOGIN_VARIABLES,
  listedOidcIds,
  OIDC_FIELDS,
  oidcPrefix,
  parseExternalLogin,
} from './external-login.ts';
import type { ProviderSettings } from './external-login.ts';
import { ARCHIVE_VARIABLES, parseArchiveStorage } from './archives.ts';
import type { ArchiveStorageSettings } from './archives.ts';
import { MIRROR_VARIABLES, parseMirror } from './mirror.ts';
import { envReader, parseSwitch, readableFile } from './values.ts';
import type { Env } from './values.ts';
import type { MirrorSettings } from './mirror.ts';
import { DEFAULT_SIGN_IN_LIMITS } from '../domain/rate-limit.ts';
import type { SignInLimits } from '../domain/rate-limit.ts';

/** Where the relational data lives: an embedded SQLite file, or a PostgreSQL server. */
/** Where the database is: the storage layer's own type (storage/database.ts), named here too. */
export type { DatabaseTarget };

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  readonly dataDir: string;
  readonly database: DatabaseTarget;
  readonly host: string;
  readonly port: number;
  /** PEM file with the authority app certificates must chain to; null: the store's own. */
  readonly caCertFile: string | null;
  /** PEM file with one or more certificate revocation lists. */
  readonly crlFile: string | null;
  readonly downloadAllowPrivate: boolean;
  /**
   * Whether screenshots may be copied from loopback and private addresses (issue 54): its own
   * switch, off unless set, since a copy is published on the store (an intranet store that lets
   * developers download from inside must not also show inside images to everyone).
   */
  readonly screenshotsAllowPrivate: boolean;
  readonly logLevel: LogLevel;
  /** Fastify's trustProxy: false, true, or a list of proxy addresses / CIDR ranges. */
  readonly trustProxy: boolean | string[];
  /**
   * The file holding the store's secret key (token look-up and encryption, session ids). Kept
   * outside the database, so a copy of the database alone reveals no usable token.
   */
  readonly secretKeyFile: string;
  /** True when the operator named the file: then it must exist; the default one is created. */
  readonly secretKeyFileConfigured: boolean;
  /** Contract §8 limits (defaults in parentheses). */
  readonly limits: {
    /** Whole release download, all redirects included (60 s). */
    readonly downloadTimeoutMs: number;
    /** Release archive size (20 MiB). */
    readonly maxArchiveBytes: number;
    readonly maxRedirects: number;
    /** Registrations, and release uploads, per user and day (100 each). */
    readonly uploadsPerDay: number;
    /** Publishes under way at once per user (3), downloads at once per node (3): domain/releases/publish-slots.ts. */
    readonly publishesPerUser: number;
    readonly publishesAtOnce: number;
  };
  /** Failed sign-ins tolerated in one window (docs/security.md). */
  readonly signInLimits: SignInLimits;
  /** How long a client may take, and how many connections it may hold (docs/security.md). */
  readonly connections: ConnectionSettings;
  /** The site's address as visitors reach it (links in mails); null: http://host:port. */
  readonly publicUrl: string | null;
  /** The discussion link of an app that gives none: `{id}` / `{id-dashed}` replaced; '' (the default): none. */
  readonly discussionUrlTemplate: string;
  /** False: accounts only by an administrator's invitation (`appstore user invite`). */
  readonly signUpOpen: boolean;
  /** The audience CI jobs' ID tokens must name (APPSTORE_TRUSTED_PUBLISHING_AUDIENCE); null: the public URL. */
  readonly trustedPublishingAudience: string | null;
  /** scrypt's work factor for new password hashes, as the exponent of N (15: 2^15). */
  readonly passwordCost: number;
  /** Bound on the listing bodies and platform cuts kept in memory (the apps' compressed parts come on top). */
  readonly listingCacheMiB: number;
  /** The share of gzip's size a brotli app listing must save to be kept and served (0.2; 0: any saving). */
  readonly listingBrotliMinSaving: number;
  /** PostgreSQL connections each node may open (10). */
  readonly databasePoolSize: number;
  /** Where `GET /metrics` is served: a port of its own on APPSTORE_HOST (null: not), and/or the main port with this bearer token (null: not). */
  readonly metrics: { readonly port: number | null; readonly token: string | null };
  /** The share of 304 answers to listings that are logged (0: none, 1: every one). */
  readonly notModifiedLogRate: number;
  readonly mail: {
    /** smtp:// or smtps:// URL of the server that sends the store's mail; null: mails go to files under the data directory. */
    readonly smtpUrl: string | null;
    /** The From header of the store's mails. */
    readonly from: string;
  };
  /** The external logins offered on the sign-in page (external-login.ts). */
  readonly externalLogin: readonly ProviderSettings[];
  /** Mirror mode (mirror.ts, docs/mirror.md); null: this store follows no upstream. */
  readonly mirror: MirrorSettings | null;
  /** Where hosted archives live (archives.ts): the data directory, or S3-compatible storage. */
  readonly archives: ArchiveStorageSettings;
  /** Keep every published release's archive and list the store's URL for it (docs/decisions.md); false: the developer's URL, as the original. */
  readonly keepArchives: boolean;
}

/** Every variable the service reads (the README's configuration table describes each). */
export const CONFIG_VARIABLES = [
  'APPSTORE_DATA_DIR',
  'APPSTORE_DATABASE_URL',
  'APPSTORE_HOST',
  'APPSTORE_PORT',
  'APPSTORE_CA_CERT',
  'APPSTORE_CRL',
  'APPSTORE_DOWNLOAD_ALLOW_PRIVATE',
  'APPSTORE_SCREENSHOTS_ALLOW_PRIVATE',
  'APPSTORE_KEEP_ARCHIVES',
  'APPSTORE_LOG_LEVEL',
  'APPSTORE_TRUST_PROXY',
  'APPSTORE_SECRET_KEY_FILE',
  'APPSTORE_DOWNLOAD_TIMEOUT_SECONDS',
  'APPSTORE_MAX_ARCHIVE_MIB',
  'APPSTORE_MAX_REDIRECTS',
  'APPSTORE_UPLOADS_PER_DAY',
  'APPSTORE_PUBLISHES_PER_USER',
  'APPSTORE_PUBLISHES_AT_ONCE',
  'APPSTORE_SIGNIN_FAILURES_PER_USER_AND_ADDRESS',
  'APPSTORE_SIGNIN_FAILURES_PER_USER',
  'APPSTORE_SIGNIN_FAILURES_PER_ADDRESS',
  'APPSTORE_SIGNIN_WINDOW_MINUTES',
  'APPSTORE_HEADERS_TIMEOUT_SECONDS',
  'APPSTORE_REQUEST_TIMEOUT_SECONDS',
  'APPSTORE_IDLE_TIMEOUT_SECONDS',
  'APPSTORE_MAX_CONNECTIONS_PER_ADDRESS',
  'APPSTORE_PUBLIC_URL',
  'APPSTORE_DISCUSSION_URL_TEMPLATE',
  'APPSTORE_SIGNUP',
  'APPSTORE_TRUSTED_PUBLISHING_AUDIENCE',
  'APPSTORE_PASSWORD_COST',
  'APPSTORE_SMTP_URL',
  'APPSTORE_MAIL_FROM',
  'APPSTORE_LISTING_CACHE_MIB',
  'APPSTORE_LISTING_BROTLI_MIN_SAVING',
  'APPSTORE_LOG_304_SAMPLE',
  'APPSTORE_DATABASE_POOL_SIZE',
  'APPSTORE_METRICS_PORT',
  'APPSTORE_METRICS_TOKEN',
  // External login (external-login.ts); each listed OpenID Provider adds APPSTORE_OIDC_<ID>_* variables.
  ...EXTERNAL_LOGIN_VARIABLES,
  // Mirror mode (mirror.ts, docs/mirror.md).
  ...MIRROR_VARIABLES,
  ...ARCHIVE_VARIABLES,
  // Read by bin/appstore.js before the service loads: run the bundle or fail (tests, CI), and why a bundle was not used.
  'APPSTORE_BUNDLE',
  'APPSTORE_DEBUG_BUILD',
] as const;

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
export const SECRET_KEY_FILE_NAME = 'secret.key';

/** Raised when the environment cannot make a valid configuration; lists every problem at once. */
export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Reads the configuration from environment variables. Empty values count as unset. Every
 * problem is collected before failing, so an operator fixes them all in one go.
 */
export function loadConfig(env: Env = process.env, cwd: string = process.cwd()): Config {
  const problems: string[] = [];
  const read = envReader(env);
  const get = (name: (typeof CONFIG_VARIABLES)[number]): string | undefined => read(name);

  const dataDir = path.resolve(cwd, get('APPSTORE_DATA_DIR') ?? './data');
  if (fs.existsSync(dataDir) && !fs.statSync(dataDir).isDirectory()) {
    problems.push(`APPSTORE_DATA_DIR: ${dataDir} exists and is not a directory`);
  }

  const database = parseDatabaseUrl(get('APPSTORE_DATABASE_URL'), dataDir, problems);
  const host = get('APPSTORE_HOST') ?? '127.0.0.1';
  const port = parsePort(get('APPSTORE_PORT'), problems);
  const caCertFile = readableFile('APPSTORE_CA_CERT', get('APPSTORE_CA_CERT'), cwd, problems);
  const crlFile = readableFile('APPSTORE_CRL', get('APPSTORE_CRL'), cwd, problems);
  const downloadAllowPrivate = parseSwitch(
    'APPSTORE_DOWNLOAD_ALLOW_PRIVATE',
    get('APPSTORE_DOWNLOAD_ALLOW_PRIVATE'),
    problems,
  );
  const screenshotsAllowPrivate = parseSwitch(
    'APPSTORE_SCREENSHOTS_ALLOW_PRIVATE',
    get('APPSTORE_SCREENSHOTS_ALLOW_PRIVATE'),
    problems,
  );

  const logLevelRaw = (get('APPSTORE_LOG_LEVEL') ?? 'info').toLowerCase();
  const logLevel = LOG_LEVELS.find((level) => level === logLevelRaw);
  if (logLevel === undefined) {
    problems.push(`APPSTORE_LOG_LEVEL: '${logLevelRaw}' is not one of ${LOG_LEVELS.join(', ')}`);
  }
  const trustProxy = parseTrustProxy(get('APPSTORE_TRUST_PROXY'), problems);
  const secretKeyRaw = get('APPSTORE_SECRET_KEY_FILE');
  const secretKeyFile =
    secretKeyRaw === undefined
      ? path.join(dataDir, SECRET_KEY_FILE_NAME)
      : (readableFile('APPSTORE_SECRET_KEY_FILE', secretKeyRaw, cwd, problems) ?? path.resolve(cwd, secretKeyRaw));

  const limits = {
    downloadTimeoutMs:
      parsePositive(
        'APPSTORE_DOWNLOAD_TIMEOUT_SECONDS',
        get('APPSTORE_DOWNLOAD_TIMEOUT_SECONDS'),
        60,
        3600,
        problems,
        true,
      ) * 1000,
    maxArchiveBytes: Math.round(
      parsePositive('APPSTORE_MAX_ARCHIVE_MIB', get('APPSTORE_MAX_ARCHIVE_MIB'), 20, 1024, problems, true) *
        1024 *
        1024,
    ),
    maxRedirects: parsePositive('APPSTORE_MAX_REDIRECTS', get('APPSTORE_MAX_REDIRECTS'), 10, 50, problems, false, true),
    uploadsPerDay: parsePositive('APPSTORE_UPLOADS_PER_DAY', get('APPSTORE_UPLOADS_PER_DAY'), 100, 1_000_000, problems),
    publishesPerUser: parsePositive(
      'APPSTORE_PUBLISHES_PER_USER',
      get('APPSTORE_PUBLISHES_PER_USER'),
      PUBLISH_SLOT_LIMITS.perUser,
      1000,
      problems,
    ),
    publishesAtOnce: parsePositive(
      'APPSTORE_PUBLISHES_AT_ONCE',
      get('APPSTORE_PUBLISHES_AT_ONCE'),
      PUBLISH_SLOT_LIMITS.perNode,
      1000,
      problems,
    ),
  };

  const d = DEFAULT_SIGN_IN_LIMITS;
  const signInLimits: SignInLimits = {
    perUserAndAddress: parsePositive(
      'APPSTORE_SIGNIN_FAILURES_PER_USER_AND_ADDRESS',
      get('APPSTORE_SIGNIN_FAILURES_PER_USER_AND_ADDRESS'),
      d.perUserAndAddress,
      1_000_000,
      problems,
    ),
    perUser: parsePositive(
      'APPSTORE_SIGNIN_FAILURES_PER_USER',
      get('APPSTORE_SIGNIN_FAILURES_PER_USER'),
      d.perUser,
      1_000_000,
      problems,
    ),
    perAddress: parsePositive(
      'APPSTORE_SIGNIN_FAILURES_PER_ADDRESS',
      get('APPSTORE_SIGNIN_FAILURES_PER_ADDRESS'),
      d.perAddress,
      1_000_000,
      problems,
    ),
    windowMs: Math.round(
      parsePositive(
        'APPSTORE_SIGNIN_WINDOW_MINUTES',
        get('APPSTORE_SIGNIN_WINDOW_MINUTES'),
        d.windowMs / 60_000,
        10_080,
        problems,
        true,
      ) * 60_000,
    ),
  };
  const connections = {
    headersTimeoutMs: Math.round(
      parsePositive(
        'APPSTORE_HEADERS_TIMEOUT_SECONDS',
        get('APPSTORE_HEADERS_TIMEOUT_SECONDS'),
        10,
        600,
        problems,
        true,
      ) * 1000,
    ),
    requestTimeoutMs: Math.round(
      parsePositive(
        'APPSTORE_REQUEST_TIMEOUT_SECONDS',
        get('APPSTORE_REQUEST_TIMEOUT_SECONDS'),
        60,
        3600,
        problems,
        true,
      ) * 1000,
    ),
    idleTimeoutMs: Math.round(
      parsePositive('APPSTORE_IDLE_TIMEOUT_SECONDS', get('APPSTORE_IDLE_TIMEOUT_SECONDS'), 30, 3600, problems, true) *
        1000,
    ),
    maxPerAddress: parsePositive(
      'APPSTORE_MAX_CONNECTIONS_PER_ADDRESS',
      get('APPSTORE_MAX_CONNECTIONS_PER_ADDRESS'),
      64,
      100_000,
      problems,
      false,
      true,
    ),
  };
  if (connections.headersTimeoutMs > connections.requestTimeoutMs) {
    problems.push(
      'APPSTORE_HEADERS_TIMEOUT_SECONDS: must not be longer than APPSTORE_REQUEST_TIMEOUT_SECONDS (the request timeout includes the headers)',
    );
  }

  const publicUrl = parsePublicUrl(get('APPSTORE_PUBLIC_URL'), problems);
  const discussionUrlTemplate = parseDiscussionTemplate(get('APPSTORE_DISCUSSION_URL_TEMPLATE'), problems);
  const passwordCostRaw = get('APPSTORE_PASSWORD_COST');
  let passwordCost = DEFAULT_PASSWORD_COST;
  if (passwordCostRaw !== undefined) {
    const { min, max } = PASSWORD_COST_RANGE;
    if (/^\d+$/.test(passwordCostRaw) && Number(passwordCostRaw) >= min && Number(passwordCostRaw) <= max)
      passwordCost = Number(passwordCostRaw);
    else
      problems.push(
        `APPSTORE_PASSWORD_COST: '${passwordCostRaw}' is not a whole number from ${min} to ${max} (the exponent of scrypt's N; default ${DEFAULT_PASSWORD_COST})`,
      );
  }
  const signUp = (get('APPSTORE_SIGNUP') ?? 'open').toLowerCase();
  if (signUp !== 'open' && signUp !== 'closed') problems.push(`APPSTORE_SIGNUP: '${signUp}' is not open or closed`);
  const smtpUrl = get('APPSTORE_SMTP_URL') ?? null;
  if (smtpUrl !== null && !/^smtps?:\/\/[^/\s]+/i.test(smtpUrl)) {
    problems.push(
      'APPSTORE_SMTP_URL: expected smtp://[user:password@]host[:port] or smtps://… (the password is never logged)',
    );
  }
  const from =
    get('APPSTORE_MAIL_FROM') ??
    `App Store <appstore@${publicUrl === null ? 'localhost' : new URL(publicUrl).hostname}>`;
  if (/[\r\n]/.test(from) || !/@/.test(from))
    problems.push('APPSTORE_MAIL_FROM: expected an address such as "App Store <store@example.com>"');

  const listingCacheMiB = parsePositive(
    'APPSTORE_LISTING_CACHE_MIB',
    get('APPSTORE_LISTING_CACHE_MIB'),
    128,
    1_048_576,
    problems,
  );
  const listingBrotliMinSaving =
    parsePositive(
      'APPSTORE_LISTING_BROTLI_MIN_SAVING',
      get('APPSTORE_LISTING_BROTLI_MIN_SAVING'),
      20,
      100,
      problems,
      true,
      true,
    ) / 100;
  const notModifiedLogRate = parsePositive(
    'APPSTORE_LOG_304_SAMPLE',
    get('APPSTORE_LOG_304_SAMPLE'),
    0.01,
    1,
    problems,
    true,
    true,
  );

  const databasePoolSize = parsePositive(
    'APPSTORE_DATABASE_POOL_SIZE',
    get('APPSTORE_DATABASE_POOL_SIZE'),
    10,
    1000,
    problems,
  );
  const metricsPortRaw = get('APPSTORE_METRICS_PORT');
  let metricsPort: number | null = null;
  if (metricsPortRaw !== undefined) {
    if (!/^\d{1,5}$/.test(metricsPortRaw) || Number(metricsPortRaw) > 65535)
      problems.push(`APPSTORE_METRICS_PORT: '${metricsPortRaw}' is not a port number (0 to 65535)`);
    else if (Number(metricsPortRaw) === port && port !== 0)
      problems.push(
        'APPSTORE_METRICS_PORT: must differ from APPSTORE_PORT (to serve metrics on the main port, set APPSTORE_METRICS_TOKEN)',
      );
    else metricsPort = Number(metricsPortRaw);
  }
  const metricsToken = get('APPSTORE_METRICS_TOKEN') ?? null;
  if (metricsToken !== null && (metricsToken.length < 16 || /\s/.test(metricsToken)))
    problems.push('APPSTORE_METRICS_TOKEN: use at least 16 characters without spaces (openssl rand -hex 16)');

  const externalLogin = parseExternalLogin(env, cwd, signUp !== 'closed', problems);
  const mirror = parseMirror(env, cwd, problems);
  const archives = parseArchiveStorage(env, cwd, problems);
  const keepArchives = parseSwitch('APPSTORE_KEEP_ARCHIVES', get('APPSTORE_KEEP_ARCHIVES'), problems, true);

  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze({
    dataDir,
    database,
    host,
    port,
    caCertFile,
    crlFile,
    downloadAllowPrivate,
    screenshotsAllowPrivate,
    logLevel: logLevel ?? 'info',
    trustProxy,
    secretKeyFile,
    secretKeyFileConfigured: secretKeyRaw !== undefined,
    limits: Object.freeze(limits),
    signInLimits: Object.freeze(signInLimits),
    connections: Object.freeze(connections),
    publicUrl,
    discussionUrlTemplate,
    signUpOpen: signUp !== 'closed',
    trustedPublishingAudience: get('APPSTORE_TRUSTED_PUBLISHING_AUDIENCE')?.trim() || null,
    passwordCost,
    listingCacheMiB,
    listingBrotliMinSaving,
    notModifiedLogRate,
    databasePoolSize,
    metrics: Object.freeze({ port: metricsPort, token: metricsToken }),
    mail: Object.freeze({ smtpUrl, from }),
    externalLogin: Object.freeze(externalLogin),
    mirror,
    archives,
    keepArchives,
  });
}

function parsePublicUrl(raw: string | undefined, problems: string[]): string | null {
  if (raw === undefined) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    problems.push(
      'APPSTORE_PUBLIC_URL: not a URL; expected the address visitors use, such as https://apps.example.com',
    );
    return null;
  }
  if (
    (url.protocol !== 'https:' && url.protocol !== 'http:') ||
    url.search !== '' ||
    url.hash !== '' ||
    url.username !== ''
  ) {
    problems.push('APPSTORE_PUBLIC_URL: expected http(s)://host[:port][/path], without query, fragment or credentials');
    return null;
  }
  return url.href.replace(/\/+$/, '');
}

/** Variables that look like ours but are not read: most likely typos, worth a warning. */
export function unknownVariables(env: Env = process.env): string[] {
  const known = new Set<string>(CONFIG_VARIABLES);
  for (const id of listedOidcIds(env)) for (const field of OIDC_FIELDS) known.add(`${oidcPrefix(id)}${field}`);
  return Object.keys(env)
    .filter((name) => name.startsWith('APPSTORE_') && !name.startsWith('APPSTORE_TEST_') && !known.has(name))
    .sort();
}

/** A number in (0, max]: whole unless `fractional`; 0 allowed when `zeroAllowed`. */
function parsePositive(
  name: string,
  raw: string | undefined,
  fallback: number,
  max: number,
  problems: string[],
  fractional = false,
  zeroAllowed = false,
): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  const shapeOk = fractional ? /^\d+(\.\d+)?$/.test(raw) : /^\d+$/.test(raw);
  if (!shapeOk || !Number.isFinite(value) || value > max || (value === 0 && !zeroAllowed)) {
    problems.push(
      `${name}: '${raw}' is not ${fractional ? 'a number' : 'a whole number'} from ${zeroAllowed ? 0 : fractional ? 'above 0' : 1} to ${max}`,
    );
    return fallback;
  }
  return value;
}

function parsePort(raw: string | undefined, problems: string[]): number {
  if (raw === undefined) return 8000;
  if (!/^\d{1,5}$/.test(raw) || Number(raw) > 65535) {
    problems.push(`APPSTORE_PORT: '${raw}' is not a port number (0 to 65535)`);
    return 8000;
  }
  return Number(raw);
}

function parseTrustProxy(raw: string | undefined, problems: string[]): boolean | string[] {
  if (raw === undefined) return false;
  const value = raw.toLowerCase();
  if (value === '0' || value === 'false' || value === 'no') return false;
  if (value === '1' || value === 'true' || value === 'yes') return true;
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const bad = entries.filter((entry) => !isAddressOrRange(entry));
  if (bad.length > 0 || entries.length === 0) {
    problems.push(
      `APPSTORE_TRUST_PROXY: ${bad.length > 0 ? `'${bad.join("', '")}' ${bad.length > 1 ? 'are' : 'is'} not an IP address or CIDR range` : 'empty list'}; use 1, 0, or a comma-separated list such as 127.0.0.1,10.0.0.0/8`,
    );
    return false;
  }
  return entries;
}

function isAddressOrRange(entry: string): boolean {
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = net.isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

/** The site's address for links in mails: the configured one, else what the server listens on. */
/** An http(s) address with `{id}` or `{id-dashed}` where the app id goes; unset or empty: ''. */
function parseDiscussionTemplate(raw: string | undefined, problems: string[]): string {
  const template = (raw ?? '').trim();
  if (template === '') return '';
  let url: URL | null = null;
  try {
    url = new URL(template.replaceAll('{id-dashed}', 'app-id').replaceAll('{id}', 'app_id'));
  } catch {
    url = null;
  }
  if (url === null || (url.protocol !== 'https:' && url.protocol !== 'http:') || !/\{id(-dashed)?\}/.test(template)) {
    problems.push(
      'APPSTORE_DISCUSSION_URL_TEMPLATE: expected an http(s) address with {id} or {id-dashed} where the app id goes, such as https://forum.example.org/c/apps/{id-dashed}',
    );
    return '';
  }
  return template;
}

/** The audiences a CI job's ID token may name: the configured one, or the public URL with and without its last slash. */
export function trustedPublishingAudiences(config: Config): string[] {
  if (config.trustedPublishingAudience !== null) return [config.trustedPublishingAudience];
  const url = publicUrlOf(config).replace(/\/+$/, '');
  return [url, `${url}/`];
}

export function publicUrlOf(config: Config): string {
  if (config.publicUrl !== null) return config.publicUrl;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return `http://${host}:${config.port}`;
}
