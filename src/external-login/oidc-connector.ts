import { said } from '../i18n/said.ts';
import * as client from 'openid-client';
import { oidcPrefix } from '../config/external-login.ts';
import type { ExternalProviderSettings, OidcProviderSettings } from '../config/external-login.ts';
import { AppError } from '../errors.ts';
import type { ExternalProfile } from '../domain/accounts/external-identity.ts';
import type { ExternalProvider, FlowChecks } from '../domain/accounts/external-login.ts';
import { providerFailure } from './provider-errors.ts';

/** How the connectors reach providers: a fetch trusting the configured authorities (tests: the local CA). */
export type ProviderFetch = client.CustomFetch;

/** Seconds a provider has to answer one request. */
export const PROVIDER_TIMEOUT_SECONDS = 15;

type Claims = Readonly<Record<string, unknown>>;

const text = (value: unknown): string | null =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : null;

/** What the admin claim says: absent or not granting is false; null when the provider has none configured. */
export function adminByClaim(claims: Claims, rule: OidcProviderSettings['adminClaim']): boolean | null {
  if (rule === null) return null;
  const value = claims[rule.name];
  if (rule.value === null) return value === true || value === 'true';
  if (Array.isArray(value)) return value.includes(rule.value);
  return value === rule.value;
}

/** The profile the verified claims (ID token, then UserInfo for what it lacks) describe. */
export function oidcProfile(settings: OidcProviderSettings, claims: Claims): ExternalProfile {
  const subject = text(claims.sub) ?? '';
  const email = claims.email_verified === true ? text(claims.email) : null;
  const name = text(claims.name) ?? '';
  const firstName = text(claims.given_name) ?? name.split(/\s+/).slice(0, -1).join(' ');
  const lastName = text(claims.family_name) ?? (name.includes(' ') ? (name.split(/\s+/).at(-1) ?? '') : name);
  const username = text(claims.preferred_username) ?? text(claims.nickname);
  return {
    provider: settings.id,
    subject,
    username,
    email,
    firstName,
    lastName,
    admin: adminByClaim(claims, settings.adminClaim),
    label: username ?? text(claims.email) ?? subject,
  };
}

/** What every connector says of itself: the settings the store's rules read. */
export function providerRules(
  settings: ExternalProviderSettings,
): Pick<ExternalProvider, 'id' | 'name' | 'signUpOpen' | 'emailDomains'> {
  return { id: settings.id, name: settings.name, signUpOpen: settings.signUpOpen, emailDomains: settings.emailDomains };
}

/** The authorization request of the code flow: PKCE always (S256), the nonce when an ID token is expected. */
export async function codeFlowParameters(
  checks: FlowChecks,
  redirectUri: string,
  scope: string,
  withNonce: boolean,
): Promise<Record<string, string>> {
  return {
    redirect_uri: redirectUri,
    scope,
    state: checks.state,
    ...(withNonce ? { nonce: checks.nonce } : {}),
    code_challenge: await client.calculatePKCECodeChallenge(checks.codeVerifier),
    code_challenge_method: 'S256',
  };
}

/**
 * An OpenID Provider through openid-client: discovery from the issuer (cached once it worked),
 * the authorization code flow with PKCE, state and nonce, and the ID token checked against the
 * provider's JWKS (signature), issuer, audience, expiry and nonce.
 */
export function oidcProvider(
  settings: OidcProviderSettings,
  fetch: ProviderFetch | undefined,
  timeoutSeconds = PROVIDER_TIMEOUT_SECONDS,
): ExternalProvider {
  let discovered: Promise<client.Configuration> | null = null;
  const configuration = (): Promise<client.Configuration> => {
    discovered ??= discover(settings, fetch, timeoutSeconds).catch((error: unknown) => {
      discovered = null; // the next sign-in tries again
      throw providerFailure(settings.name, error);
    });
    return discovered;
  };
  return {
    ...providerRules(settings),
    async authorizationUrl(checks, redirectUri) {
      return client.buildAuthorizationUrl(
        await configuration(),
        await codeFlowParameters(checks, redirectUri, settings.scopes.join(' '), true),
      );
    },
    async complete(callbackUrl: URL, checks: FlowChecks) {
      const config = await configuration();
      try {
        const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
          pkceCodeVerifier: checks.codeVerifier,
          expectedState: checks.state,
          expectedNonce: checks.nonce,
          idTokenExpected: true,
        });
        const idClaims: Claims = tokens.claims() ?? {};
        const subject = text(idClaims.sub);
        if (subject === null) throw providerFailure(settings.name, new Error('the ID token names no subject'));
        const userInfo =
          config.serverMetadata().userinfo_endpoint === undefined
            ? {}
            : await client.fetchUserInfo(config, tokens.access_token, subject);
        return oidcProfile(settings, { ...userInfo, ...idClaims });
      } catch (error) {
        throw providerFailure(settings.name, error);
      }
    },
  };
}

/** The issuer a provider's discovery document announced, when it is not the configured one (openid-client's refusal). */
function announcedIssuer(error: unknown): string | null {
  for (let at: unknown = error; at instanceof Error; at = at.cause) {
    const details = (at as { cause?: unknown }).cause as
      { attribute?: unknown; body?: { issuer?: unknown } } | undefined;
    if (
      details !== undefined &&
      details !== null &&
      details.attribute === 'issuer' &&
      typeof details.body?.issuer === 'string'
    )
      return details.body.issuer;
  }
  return null;
}

/**
 * A provider whose discovery document names another issuer than the configured one (`127.0.0.1`
 * against `localhost`) can sign nobody in: every ID token would be refused. It is the store's
 * configuration that is wrong, not the person signing in: a 502 for them, and for the operator a
 * log line (the cause, logged with the refusal) naming both values and the variable to change.
 */
function misconfiguredIssuer(settings: OidcProviderSettings, announced: string): AppError {
  const refusal = new AppError(
    'identity_provider_unavailable',
    said`${settings.name} is not set up correctly on this store, so nobody can sign in with it now. Try again later; if it lasts, tell the store's operators.`,
  );
  refusal.cause = new Error(
    `configuration error: ${oidcPrefix(settings.id)}ISSUER is "${settings.issuer}" but the provider at that address announces the issuer "${announced}"; they must be the same (OpenID Connect Discovery): set ${oidcPrefix(settings.id)}ISSUER to "${announced}"`,
  );
  return refusal;
}

async function discover(
  settings: OidcProviderSettings,
  fetch: ProviderFetch | undefined,
  timeoutSeconds: number,
): Promise<client.Configuration> {
  const execute = [
    client.enableNonRepudiationChecks,
    ...(settings.issuer.startsWith('http:') ? [client.allowInsecureRequests] : []),
  ];
  const options = { execute, timeout: timeoutSeconds, ...(fetch === undefined ? {} : { [client.customFetch]: fetch }) };
  // Discovery first without client authentication, to choose the method the provider supports.
  let probe: client.Configuration;
  try {
    probe = await client.discovery(new URL(settings.issuer), settings.clientId, undefined, client.None(), options);
  } catch (error) {
    const announced = announcedIssuer(error);
    throw announced === null ? error : misconfiguredIssuer(settings, announced);
  }
  const methods = probe.serverMetadata().token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
  const authentication =
    settings.clientSecret === null
      ? client.None()
      : methods.includes('client_secret_basic')
        ? client.ClientSecretBasic(settings.clientSecret)
        : client.ClientSecretPost(settings.clientSecret);
  const config = new client.Configuration(probe.serverMetadata(), settings.clientId, undefined, authentication);
  for (const step of execute) step(config);
  if (fetch !== undefined) config[client.customFetch] = fetch;
  config.timeout = timeoutSeconds;
  return config;
}
