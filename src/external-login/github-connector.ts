import * as client from 'openid-client';
import type { GithubProviderSettings } from '../config/external-login.ts';
import type { ExternalProfile } from '../domain/accounts/external-identity.ts';
import type { ExternalProvider } from '../domain/accounts/external-login.ts';
import { codeFlowParameters, PROVIDER_TIMEOUT_SECONDS, providerRules } from './oidc-connector.ts';
import type { ProviderFetch } from './oidc-connector.ts';
import { providerFailure } from './provider-errors.ts';

/** What the sign-in asks of GitHub: the profile, and the addresses (to take the verified primary one). */
const GITHUB_SCOPES = 'read:user user:email';
const API_HEADERS = { accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' };

interface GithubUser {
  readonly id: number;
  readonly login: string;
  readonly name: string | null;
}
interface GithubEmail {
  readonly email: string;
  readonly primary: boolean;
  readonly verified: boolean;
}

/**
 * GitHub answers a refused code with 200 and an `error` member: made a 400 here, so the client
 * library reads it as the OAuth error it is (and says which).
 */
function githubTokenErrors(fetch: ProviderFetch): ProviderFetch {
  return async (url, options) => {
    const response = await fetch(url, options);
    if (response.status !== 200 || !/\/login\/oauth\/access_token$/.test(new URL(url).pathname)) return response;
    const body = await response.text();
    let error = false;
    try {
      error = typeof (JSON.parse(body) as { error?: unknown }).error === 'string';
    } catch {
      // not JSON: the library says so
    }
    return new Response(body, { status: error ? 400 : 200, headers: response.headers });
  };
}

/** The profile GitHub's user and e-mail APIs describe: the numeric id is the subject (a login can be renamed). */
export function githubProfile(user: GithubUser, emails: readonly GithubEmail[]): ExternalProfile {
  const primary = emails.find((email) => email.primary && email.verified) ?? null;
  const name = (user.name ?? '').trim();
  const split = name.lastIndexOf(' ');
  return {
    provider: 'github',
    subject: String(user.id),
    username: user.login,
    email: primary?.email ?? null,
    firstName: split < 0 ? name : name.slice(0, split),
    lastName: split < 0 ? '' : name.slice(split + 1),
    admin: null,
    label: user.login,
  };
}

/**
 * GitHub (or GitHub Enterprise Server), which is not an OpenID Provider: OAuth 2.0's code flow
 * (state, and PKCE, which GitHub accepts), then its REST API for the user and their addresses.
 */
export function githubProvider(
  settings: GithubProviderSettings,
  fetch: ProviderFetch | undefined,
  timeoutSeconds = PROVIDER_TIMEOUT_SECONDS,
): ExternalProvider {
  const config = new client.Configuration(
    {
      issuer: settings.webUrl,
      authorization_endpoint: `${settings.webUrl}/login/oauth/authorize`,
      token_endpoint: `${settings.webUrl}/login/oauth/access_token`,
    },
    settings.clientId,
    undefined,
    client.ClientSecretPost(settings.clientSecret),
  );
  if (settings.webUrl.startsWith('http:') || settings.apiUrl.startsWith('http:')) client.allowInsecureRequests(config);
  config[client.customFetch] = githubTokenErrors(
    fetch ?? ((url, options) => globalThis.fetch(url, options as RequestInit)),
  );
  config.timeout = timeoutSeconds;

  async function api<T>(accessToken: string, path: string): Promise<T> {
    const response = await client.fetchProtectedResource(
      config,
      accessToken,
      new URL(`${settings.apiUrl}${path}`),
      'GET',
      null,
      new Headers(API_HEADERS),
    );
    if (!response.ok) throw providerFailure(settings.name, new TypeError(`GET ${path} answered ${response.status}`));
    return (await response.json()) as T;
  }

  return {
    ...providerRules(settings),
    async authorizationUrl(checks, redirectUri) {
      return client.buildAuthorizationUrl(config, await codeFlowParameters(checks, redirectUri, GITHUB_SCOPES, false));
    },
    async complete(callbackUrl, checks) {
      try {
        const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
          pkceCodeVerifier: checks.codeVerifier,
          expectedState: checks.state,
          idTokenExpected: false,
        });
        const user = await api<GithubUser>(tokens.access_token, '/user');
        if (typeof user.id !== 'number' || typeof user.login !== 'string')
          throw providerFailure(settings.name, new TypeError('GET /user did not describe a user'));
        const emails = await api<GithubEmail[]>(tokens.access_token, '/user/emails');
        return githubProfile(user, Array.isArray(emails) ? emails : []);
      } catch (error) {
        throw providerFailure(settings.name, error);
      }
    },
  };
}
