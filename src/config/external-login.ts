import { envReader, readSecret } from './values.ts';
import type { Env } from './values.ts';

/**
 * External login's configuration (docs/external-login.md): OpenID Providers listed in
 * APPSTORE_OIDC_PROVIDERS, each with its own APPSTORE_OIDC_<ID>_* variables, and the GitHub preset.
 * Client secrets are read from files, so they stay out of the environment and the process list.
 */
export interface ExternalProviderSettings {
  readonly id: string;
  /** "Sign in with {name}". */
  readonly name: string;
  readonly clientId: string;
  /** Null: a public client (PKCE alone proves the code's holder). */
  readonly clientSecret: string | null;
  /** Null: any address; else the verified address must be in one of these (lower case). */
  readonly emailDomains: readonly string[] | null;
  /** False: only identities already connected to an account sign in. */
  readonly signUpOpen: boolean;
}

export interface OidcProviderSettings extends ExternalProviderSettings {
  readonly kind: 'oidc';
  /** Discovery starts at `{issuer}/.well-known/openid-configuration`. */
  readonly issuer: string;
  readonly scopes: readonly string[];
  /** A claim that grants administrator rights: present and true, equal to `value`, or a list holding it. */
  readonly adminClaim: { readonly name: string; readonly value: string | null } | null;
}

export interface GithubProviderSettings extends ExternalProviderSettings {
  readonly kind: 'github';
  readonly clientSecret: string;
  /** Where people sign in: https://github.com, or a GitHub Enterprise Server's address. */
  readonly webUrl: string;
  /** Its REST API: https://api.github.com, or `{webUrl}/api/v3` on GitHub Enterprise Server. */
  readonly apiUrl: string;
}

export type ProviderSettings = OidcProviderSettings | GithubProviderSettings;

/** The variables each listed OpenID Provider may have: APPSTORE_OIDC_<ID>_<FIELD>. */
export const OIDC_FIELDS = [
  'ISSUER',
  'CLIENT_ID',
  'CLIENT_SECRET_FILE',
  'NAME',
  'SCOPES',
  'ADMIN_CLAIM',
  'EMAIL_DOMAINS',
  'SIGNUP',
] as const;
export const EXTERNAL_LOGIN_VARIABLES = [
  'APPSTORE_OIDC_PROVIDERS',
  'APPSTORE_GITHUB_CLIENT_ID',
  'APPSTORE_GITHUB_CLIENT_SECRET_FILE',
  'APPSTORE_GITHUB_URL',
  'APPSTORE_GITHUB_API_URL',
  'APPSTORE_GITHUB_NAME',
  'APPSTORE_GITHUB_EMAIL_DOMAINS',
  'APPSTORE_GITHUB_SIGNUP',
] as const;

const ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,29}$/;

/** The provider's variable prefix: `keycloak-eu` reads APPSTORE_OIDC_KEYCLOAK_EU_*. */
export const oidcPrefix = (id: string): string => `APPSTORE_OIDC_${id.toUpperCase().replace(/-/g, '_')}_`;

/** The ids APPSTORE_OIDC_PROVIDERS lists (valid or not: their variables are not typos). */
export function listedOidcIds(env: Env): string[] {
  return (env.APPSTORE_OIDC_PROVIDERS ?? '')
    .split(',')
    .map((id) => id.trim())
    .filter((id) => id !== '');
}

/** Every provider configured, OpenID Providers first in their listed order, then GitHub; problems are pushed. */
export function parseExternalLogin(
  env: Env,
  cwd: string,
  storeSignUpOpen: boolean,
  problems: string[],
): ProviderSettings[] {
  const get = envReader(env);
  const common = (prefix: string, id: string, defaultName: string) => ({
    id,
    name: get(`${prefix}NAME`) ?? defaultName,
    emailDomains: parseDomains(`${prefix}EMAIL_DOMAINS`, get(`${prefix}EMAIL_DOMAINS`), problems),
    signUpOpen: parseSignUp(`${prefix}SIGNUP`, get(`${prefix}SIGNUP`), storeSignUpOpen, problems),
  });
  const providers: ProviderSettings[] = [];
  for (const id of new Set(listedOidcIds(env))) {
    if (!ID_PATTERN.test(id) || id === 'github') {
      problems.push(
        `APPSTORE_OIDC_PROVIDERS: '${id.slice(0, 40)}' is not a usable id (1 to 30 lowercase letters, digits and -, not "github": that is the GitHub preset)`,
      );
      continue;
    }
    const prefix = oidcPrefix(id);
    const issuer = parseServerUrl(`${prefix}ISSUER`, get(`${prefix}ISSUER`), problems, true);
    const clientId = get(`${prefix}CLIENT_ID`);
    if (clientId === undefined)
      problems.push(`${prefix}CLIENT_ID: missing (the client id the provider gave this store)`);
    const secretFile = get(`${prefix}CLIENT_SECRET_FILE`);
    const clientSecret =
      secretFile === undefined ? null : readSecret(`${prefix}CLIENT_SECRET_FILE`, secretFile, cwd, problems);
    const scopes = (get(`${prefix}SCOPES`) ?? 'openid email profile').split(/[\s,]+/).filter((scope) => scope !== '');
    if (!scopes.includes('openid'))
      problems.push(`${prefix}SCOPES: must include openid (the scopes are asked for as given)`);
    const adminRaw = get(`${prefix}ADMIN_CLAIM`);
    let adminClaim: OidcProviderSettings['adminClaim'] = null;
    if (adminRaw !== undefined) {
      const [name = '', ...rest] = adminRaw.split('=');
      const value = rest.length === 0 ? null : rest.join('=');
      if (!/^[\w.:-]{1,100}$/.test(name) || value === '')
        problems.push(`${prefix}ADMIN_CLAIM: expected CLAIM or CLAIM=VALUE, such as groups=appstore-admins`);
      else adminClaim = { name, value };
    }
    const shared = common(prefix, id, id.charAt(0).toUpperCase() + id.slice(1));
    if (issuer !== null && clientId !== undefined)
      providers.push({ kind: 'oidc', ...shared, issuer, clientId, clientSecret, scopes, adminClaim });
  }
  const githubId = get('APPSTORE_GITHUB_CLIENT_ID');
  const githubSecretFile = get('APPSTORE_GITHUB_CLIENT_SECRET_FILE');
  if (githubId !== undefined || githubSecretFile !== undefined) {
    if (githubId === undefined)
      problems.push(
        'APPSTORE_GITHUB_CLIENT_ID: missing (set it with APPSTORE_GITHUB_CLIENT_SECRET_FILE to sign in with GitHub)',
      );
    if (githubSecretFile === undefined)
      problems.push("APPSTORE_GITHUB_CLIENT_SECRET_FILE: missing (the file holding the OAuth app's client secret)");
    const secret =
      githubSecretFile === undefined
        ? null
        : readSecret('APPSTORE_GITHUB_CLIENT_SECRET_FILE', githubSecretFile, cwd, problems);
    const webUrl = parseServerUrl(
      'APPSTORE_GITHUB_URL',
      get('APPSTORE_GITHUB_URL') ?? 'https://github.com',
      problems,
      false,
    );
    const apiRaw =
      get('APPSTORE_GITHUB_API_URL') ??
      (webUrl === 'https://github.com' ? 'https://api.github.com' : `${webUrl ?? ''}/api/v3`);
    const apiUrl = parseServerUrl('APPSTORE_GITHUB_API_URL', apiRaw, problems, false);
    const shared = common('APPSTORE_GITHUB_', 'github', 'GitHub');
    if (githubId !== undefined && secret !== null && webUrl !== null && apiUrl !== null)
      providers.push({ kind: 'github', ...shared, clientId: githubId, clientSecret: secret, webUrl, apiUrl });
  }
  return providers;
}

/** An https address (http only on this machine: a provider under test or in development), without query or fragment. */
function parseServerUrl(name: string, raw: string | undefined, problems: string[], required: boolean): string | null {
  if (raw === undefined) {
    if (required)
      problems.push(`${name}: missing (the provider's issuer URL, such as https://id.example.com/realms/main)`);
    return null;
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    problems.push(`${name}: '${raw.slice(0, 200)}' is not a URL`);
    return null;
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    problems.push(`${name}: use https:// (plain http only for a provider on this machine)`);
    return null;
  }
  if (url.search !== '' || url.hash !== '' || url.username !== '') {
    problems.push(`${name}: expected an address without query, fragment or credentials`);
    return null;
  }
  return url.href.replace(/\/+$/, '');
}

function parseDomains(name: string, raw: string | undefined, problems: string[]): string[] | null {
  if (raw === undefined) return null;
  const domains = raw
    .split(',')
    .map((domain) => domain.trim().toLowerCase().replace(/^@/, ''))
    .filter((domain) => domain !== '');
  const bad = domains.filter((domain) => !/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(domain));
  if (bad.length > 0 || domains.length === 0) {
    problems.push(`${name}: expected domains separated by commas, such as example.com,example.org`);
    return null;
  }
  return domains;
}

function parseSignUp(name: string, raw: string | undefined, fallback: boolean, problems: string[]): boolean {
  if (raw === undefined) return fallback;
  const value = raw.toLowerCase();
  if (value !== 'open' && value !== 'closed') problems.push(`${name}: '${raw.slice(0, 40)}' is not open or closed`);
  return value === 'open';
}
