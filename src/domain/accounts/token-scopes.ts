import { said } from '../../i18n/said.ts';
import { AppError } from '../../errors.ts';

/**
 * What a scoped token may do (issue 53). The account's one unscoped token (`POST /api/v1/token`),
 * Basic and the website's session may do everything; a scoped token only what its scopes name,
 * and, when it names apps, only on those apps. Publishing and deleting releases are two scopes,
 * so that a token can publish and never delete; the routes that fit none of the four
 * (download numbers, ratings) have a scope of their own, so no route is open to every token.
 */
export const TOKEN_SCOPES = [
  'release:publish',
  'release:delete',
  'app:register',
  'app:delete',
  'app:downloads',
  'rating:write',
  'token:manage',
] as const;

export type TokenScope = (typeof TOKEN_SCOPES)[number];

export const SCOPE_DESCRIPTIONS: Readonly<Record<TokenScope, string>> = {
  'release:publish': 'publish releases',
  'release:delete': 'delete releases',
  'app:register': 'register apps and their certificates',
  'app:delete': 'delete apps',
  'app:downloads': 'read download numbers',
  'rating:write': 'rate apps',
  'token:manage': 'list, create and revoke tokens',
};

export function isTokenScope(value: string): value is TokenScope {
  return (TOKEN_SCOPES as readonly string[]).includes(value);
}

/** Where a scoped credential came from: a token the user made, or one trusted publishing handed to a CI job. */
export type CredentialKind = 'personal' | 'publishing';

/** The limits of the credential a request came with; absent on a `User`: no limits. */
export interface CredentialLimits {
  readonly tokenId: number;
  readonly kind: CredentialKind;
  readonly name: string;
  readonly scopes: readonly TokenScope[];
  /** Null: every app the user may act on. */
  readonly apps: readonly string[] | null;
  readonly expiresAt: Date;
  /** Set for a publishing token: where the CI job ran (recorded with each release it publishes). */
  readonly provenance: Provenance | null;
}

/** Where a release published through trusted publishing came from (issue 53 §2). */
export interface Provenance {
  /** `github`, `gitlab` or `oidc` (another issuer an admin allows). */
  readonly provider: string;
  readonly issuer: string;
  /** owner/repository on GitHub, the project path on GitLab, the subject elsewhere. */
  readonly repository: string;
  readonly commit: string | null;
  /** The workflow file (GitHub), the CI configuration (GitLab). */
  readonly workflow: string | null;
  readonly ref: string | null;
  readonly environment: string | null;
  /** The run (GitHub) or pipeline (GitLab): its id and a link to it when the provider has one. */
  readonly runId: string | null;
  readonly runUrl: string | null;
}

/** Whoever acts, as far as their credential goes: a user (`limits` set when they came with a scoped token). */
export interface Credentialed {
  readonly limits?: CredentialLimits;
}

/** Refuses a credential that lacks `scope` (403 naming it); full credentials pass. */
export function requireScope(user: Credentialed, scope: TokenScope): void {
  const limits = user.limits;
  if (limits === undefined || limits.scopes.includes(scope)) return;
  throw new AppError(
    'insufficient_scope',
    said`This token lacks the scope '${scope}' (${SCOPE_DESCRIPTIONS[scope]}). It has: ${limits.scopes.join(', ') || 'none'}. Create a token with that scope on the account page, or with POST /api/v1/tokens.`,
    { scope: [said`missing: ${scope}`] },
  );
}

/** Refuses a credential limited to other apps (403); full credentials and unlimited tokens pass. */
export function requireAppInScope(user: Credentialed, appId: string): void {
  const apps = user.limits?.apps ?? null;
  if (apps === null || apps.includes(appId)) return;
  throw new AppError(
    'insufficient_scope',
    apps.length === 1
      ? said`This token may act only on the app ${apps.join(', ')}, not on ${appId}.`
      : said`This token may act only on the apps ${apps.join(', ')}, not on ${appId}.`,
    { app: [said`not in the token's apps: ${appId}`] },
  );
}
