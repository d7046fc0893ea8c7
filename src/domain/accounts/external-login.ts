import { said } from '../../i18n/said.ts';
import type { Said } from '../../i18n/said.ts';
import { randomBytes } from 'node:crypto';
import { AppError } from '../../errors.ts';
import type { SelfServiceDeps } from './account-links.ts';
import { ACCOUNT_DISABLED } from './authenticate.ts';
import type { ExternalIdentityStore, ExternalProfile } from './external-identity.ts';
import type { NewSession } from './sessions.ts';
import { hmacHex } from './token-codec.ts';
import type { User, UserRecord } from './user.ts';

/*
 * External login (docs/external-login.md): the provider port, what every flow shares, and the
 * rules on what a provider sends. The flows: external-sign-in.ts (begin, callback, sign in),
 * external-sign-up.ts (a first sign-in that chooses its username), external-links.ts (connect
 * and disconnect an identity from an account).
 */

/** What the three random values of a sign-in protect: the callback's origin, the ID token's freshness, the code's holder. */
export interface FlowChecks {
  readonly state: string;
  readonly nonce: string;
  readonly codeVerifier: string;
}

/**
 * A configured provider: an OpenID Provider, or GitHub. The connector does the protocol (the
 * library's authorization URL, code exchange and ID token checks); the rules here decide what an
 * identity it vouches for may do on this store.
 */
export interface ExternalProvider {
  /** The id in the configuration and in the callback's path: lowercase letters, digits, '-'. */
  readonly id: string;
  /** "Sign in with {name}". */
  readonly name: string;
  /** False: only identities already linked to an account sign in (no new accounts). */
  readonly signUpOpen: boolean;
  /** Null: any address; else the person's verified address must be in one of these domains. */
  readonly emailDomains: readonly string[] | null;
  /** Where to send the browser (PKCE's challenge is made from the verifier here). */
  authorizationUrl(checks: FlowChecks, redirectUri: string): Promise<URL>;
  /**
   * The profile the callback proves, after the code exchange and every check of the answer;
   * `external_login_failed` when the answer cannot be trusted, `identity_provider_unavailable`
   * when the provider cannot be reached.
   */
  complete(callbackUrl: URL, checks: FlowChecks): Promise<ExternalProfile>;
}

export interface ExternalLoginDeps extends SelfServiceDeps {
  readonly identities: ExternalIdentityStore;
  /** By id, in the order of the sign-in page's buttons. */
  readonly providers: ReadonlyMap<string, ExternalProvider>;
}

/** A sign-in must come back within this: the provider's own pages included. */
export const FLOW_LIFETIME_MS = 10 * 60_000;

/** What a flow keeps server-side until its callback. */
export type FlowData = { nonce: string; codeVerifier: string; next: string };
/** A first sign-in waiting for the person to choose a username. */
export type PendingData = { profile: ExternalProfile; next: string };

export type ExternalOutcome =
  /** `created`: a new account (its page welcomes it); `addressInUse`: the provider's address is another account's, so this one has none. */
  | {
      readonly kind: 'signed-in';
      readonly provider: string;
      readonly session: NewSession;
      readonly next: string;
      readonly created: boolean;
      readonly addressInUse: boolean;
    }
  /** A first sign-in whose name is taken or unusable here: the person picks one (`chooseUsername`). */
  | { readonly kind: 'choose-username'; readonly provider: ExternalProvider; readonly suggestion: string }
  | { readonly kind: 'linked'; readonly user: User; readonly provider: ExternalProvider; readonly already: boolean };

export const random = (): string => randomBytes(32).toString('base64url');
export const flowKey = (deps: Pick<ExternalLoginDeps, 'keys'>, state: string): string =>
  hmacHex(deps.keys.session, `external-flow ${state}`);
export const pendingKey = (deps: Pick<ExternalLoginDeps, 'keys'>, browser: string): string =>
  hmacHex(deps.keys.session, `external-pending ${browser}`);
export const bindingHash = (deps: Pick<ExternalLoginDeps, 'keys'>, browser: string): string =>
  hmacHex(deps.keys.session, `external-browser ${browser}`);

/** The callback every provider is registered with: `{public URL}/account/external/{id}/callback`. */
export function callbackUrl(deps: Pick<ExternalLoginDeps, 'publicUrl'>, providerId: string): string {
  return `${deps.publicUrl}/account/external/${providerId}/callback`;
}

export function findProvider(providerId: string, deps: Pick<ExternalLoginDeps, 'providers'>): ExternalProvider {
  const provider = deps.providers.get(providerId);
  if (provider === undefined)
    throw new AppError('not_found', said`This store has no external login named '${providerId.slice(0, 60)}'.`);
  return provider;
}

/** Control and direction-override characters, which no name needs (and PostgreSQL's text refuses NUL). */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const clean = (value: string, max: number): string => value.replace(UNPRINTABLE, '').trim().slice(0, max);

/**
 * The profile as the store keeps it, whatever the provider sent: printable text within the
 * columns' sizes, and an address only when it is one (one `@`, no spaces).
 */
export function cleanProfile(profile: ExternalProfile): ExternalProfile {
  const email = profile.email === null ? null : clean(profile.email, 254);
  const username = profile.username === null ? null : clean(profile.username, 254);
  return {
    ...profile,
    subject: clean(profile.subject, 255),
    username: username === '' ? null : username,
    email: email !== null && /^[^\s@]+@[^\s@]+$/.test(email) ? email : null,
    firstName: clean(profile.firstName, 150),
    lastName: clean(profile.lastName, 150),
    label: clean(profile.label, 200) || clean(profile.subject, 200),
  };
}

/** An external login that cannot go on: what happened, and that nothing changed. */
export const externalLoginFailed = (detail: Said): AppError =>
  new AppError(
    'external_login_failed',
    said`${detail} Nothing was created or changed: start again from the sign-in page.`,
  );

/** A disabled account signs in by no way. */
export function refuseDisabled(user: UserRecord): void {
  if (!user.isActive) throw new AppError('forbidden', ACCOUNT_DISABLED);
}
