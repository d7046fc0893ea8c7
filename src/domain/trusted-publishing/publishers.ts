import { said } from '../../i18n/said.ts';
import type { Said } from '../../i18n/said.ts';
import { AppError } from '../../errors.ts';

/**
 * Trusted publishers (issue 53 §1): a CI workflow an app's owner trusts to publish the app's
 * releases with no stored secret. The CI job's OpenID Connect ID token names where it runs; one
 * that matches a publisher of the app is exchanged for a token that lives 15 minutes and can only
 * publish that app's releases.
 */
export type PublisherProvider = 'github' | 'gitlab' | 'oidc';

export const GITHUB_ISSUER = 'https://token.actions.githubusercontent.com';
export const GITLAB_ISSUER = 'https://gitlab.com';

export interface TrustedPublisher {
  readonly id: number;
  readonly appId: string;
  readonly provider: PublisherProvider;
  readonly issuer: string;
  /** owner/repository (GitHub), the project path (GitLab), '' for another issuer. */
  readonly repository: string;
  /** GitHub's repository_id, GitLab's project_id: given, or pinned at the first exchange. */
  readonly repositoryId: string | null;
  /** GitHub's repository_owner_id, GitLab's namespace_id: given, or pinned at the first exchange. */
  readonly ownerId: string | null;
  /** The workflow file under .github/workflows (GitHub). */
  readonly workflow: string | null;
  readonly environment: string | null;
  /** The git ref the pipeline must run for (GitLab: a branch or tag name). */
  readonly ref: string | null;
  /** Another issuer: each claim and the value it must have. */
  readonly claims: Readonly<Record<string, string>> | null;
  readonly createdAt: Date;
  readonly createdBy: string;
}

export type NewPublisher = Omit<TrustedPublisher, 'id' | 'createdAt' | 'createdBy'>;

/** An issuer an admin allows (GitHub Enterprise Server, self-managed GitLab, another CI). */
export interface AllowedIssuer {
  readonly url: string;
  readonly provider: PublisherProvider;
  readonly name: string;
  /** The claims every publisher of this issuer must name (another issuer's). */
  readonly requiredClaims: readonly string[];
}

/** Always allowed: github.com's Actions and gitlab.com. */
export const BUILT_IN_ISSUERS: readonly AllowedIssuer[] = [
  { url: GITHUB_ISSUER, provider: 'github', name: 'GitHub Actions', requiredClaims: [] },
  { url: GITLAB_ISSUER, provider: 'gitlab', name: 'GitLab.com', requiredClaims: [] },
];

/** What an owner fills in: the form's fields or the CLI's options, before they are checked. */
export interface PublisherRequest {
  readonly provider: string;
  /** Empty: the provider's public issuer (github.com, gitlab.com). */
  readonly issuer?: string;
  readonly repository?: string;
  readonly repositoryId?: string;
  readonly ownerId?: string;
  readonly workflow?: string;
  readonly environment?: string;
  readonly ref?: string;
  /** Another issuer: `claim=value` pairs. */
  readonly claims?: Readonly<Record<string, string>>;
}

function refuse(field: string, message: Said): AppError {
  return new AppError('invalid_request', said`Cannot add this trusted publisher: ${message}.`, { [field]: [message] });
}

const optional = (value: string | undefined): string | null => {
  const trimmed = (value ?? '').trim();
  return trimmed === '' ? null : trimmed;
};

const GITHUB_REPOSITORY = /^[A-Za-z0-9-]{1,39}\/[A-Za-z0-9._-]{1,100}$/;
const GITLAB_PROJECT = /^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+){1,20}$/;
const WORKFLOW_FILE = /^[A-Za-z0-9._-]{1,100}\.ya?ml$/;
const NUMERIC_ID = /^[0-9]{1,20}$/;
const CLAIM_NAME = /^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/;

/** The request checked against the provider's rules and the allowed issuers; each problem names its field. */
export function checkedPublisher(
  appId: string,
  request: PublisherRequest,
  allowed: readonly AllowedIssuer[],
): NewPublisher {
  const provider = request.provider;
  if (provider !== 'github' && provider !== 'gitlab' && provider !== 'oidc')
    throw refuse('provider', said`the provider is github, gitlab or oidc (another issuer an administrator allows)`);
  const given = optional(request.issuer)?.replace(/\/+$/, '') ?? null;
  const issuer = given ?? (provider === 'github' ? GITHUB_ISSUER : provider === 'gitlab' ? GITLAB_ISSUER : null);
  if (issuer === null) throw refuse('issuer', said`name the issuer (its https:// URL)`);
  const known = allowed.find((entry) => entry.url === issuer);
  if (known === undefined)
    throw refuse(
      'issuer',
      said`${issuer.slice(0, 200)} is not an issuer this store allows; an administrator can allow it (appstore trusted-issuer add)`,
    );
  if (known.provider !== provider)
    throw refuse('issuer', said`${issuer} is allowed as a ${known.provider} issuer, not as ${provider}`);
  const repositoryId = optional(request.repositoryId);
  const ownerId = optional(request.ownerId);
  for (const [field, value] of [
    ['repositoryId', repositoryId],
    ['ownerId', ownerId],
  ] as const)
    if (value !== null && !NUMERIC_ID.test(value)) throw refuse(field, said`a numeric id has only digits`);
  const environment = optional(request.environment);
  if (environment !== null && environment.length > 255) throw refuse('environment', said`at most 255 characters`);
  const base = { appId, provider, issuer, repositoryId, ownerId, environment } as const;
  // A field the provider does not use is refused, not dropped: the owner meant something by it.
  const unused = (field: 'workflow' | 'ref', by: string) => {
    if (optional(request[field]) !== null) throw refuse(field, said`${by} publishers have no ${field}; leave it empty`);
  };
  if (provider !== 'github') unused('workflow', provider === 'gitlab' ? 'GitLab' : 'Other issuers’');
  if (provider !== 'gitlab')
    unused('ref', provider === 'github' ? 'GitHub (the workflow file decides)' : 'Other issuers’');
  if (provider === 'github') {
    const repository = optional(request.repository) ?? '';
    if (!GITHUB_REPOSITORY.test(repository))
      throw refuse('repository', said`name the repository as owner/name, as in its GitHub address`);
    const workflow = (optional(request.workflow) ?? '').replace(/^\.github\/workflows\//, '');
    if (!WORKFLOW_FILE.test(workflow))
      throw refuse('workflow', said`name the workflow file under .github/workflows, such as release.yml`);
    return { ...base, repository, workflow, ref: null, claims: null };
  }
  if (provider === 'gitlab') {
    const repository = optional(request.repository) ?? '';
    if (!GITLAB_PROJECT.test(repository))
      throw refuse('repository', said`name the project by its path, such as group/project`);
    const ref = optional(request.ref);
    if (ref !== null && ref.length > 255) throw refuse('ref', said`at most 255 characters`);
    return { ...base, repository, workflow: null, ref, claims: null };
  }
  const claims = request.claims ?? {};
  const entries = Object.entries(claims);
  if (entries.length === 0 || entries.length > 20) throw refuse('claims', said`name 1 to 20 claims and their values`);
  for (const [name, value] of entries) {
    if (!CLAIM_NAME.test(name)) throw refuse('claims', said`'${name.slice(0, 64)}' is not a claim name`);
    if (value === '' || value.length > 500) throw refuse('claims', said`the value of ${name} is empty or too long`);
  }
  const missing = known.requiredClaims.filter((name) => !(name in claims));
  if (missing.length > 0)
    throw refuse('claims', said`publishers of ${known.name} must match the claims ${missing.join(', ')}`);
  return { ...base, repository: '', workflow: null, ref: null, claims: { ...claims } };
}

/** How a publisher reads to a person (the manage page, the CLI, the audit log). */
export function describePublisher(publisher: NewPublisher): string {
  switch (publisher.provider) {
    case 'github':
      return `GitHub ${publisher.repository} .github/workflows/${publisher.workflow}${publisher.environment === null ? '' : ` environment ${publisher.environment}`}${publisher.issuer === GITHUB_ISSUER ? '' : ` (${publisher.issuer})`}`;
    case 'gitlab':
      return `GitLab ${publisher.repository}${publisher.ref === null ? '' : ` ref ${publisher.ref}`}${publisher.environment === null ? '' : ` environment ${publisher.environment}`}${publisher.issuer === GITLAB_ISSUER ? '' : ` (${publisher.issuer})`}`;
    case 'oidc':
      return `${publisher.issuer} ${Object.entries(publisher.claims ?? {})
        .map(([name, value]) => `${name}=${value}`)
        .join(' ')}`;
  }
}
