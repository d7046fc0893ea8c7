import type { Provenance } from '../accounts/token-scopes.ts';
import { GITHUB_ISSUER } from './publishers.ts';
import type { TrustedPublisher } from './publishers.ts';

/** The verified claims of a CI job's ID token. */
export type IdTokenClaims = Readonly<Record<string, unknown>>;

const claim = (claims: IdTokenClaims, name: string): string | null => {
  const value = claims[name];
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
};
const same = (a: string | null, b: string): boolean => a !== null && a.toLowerCase() === b.toLowerCase();

/** Why a publisher does not match: the claim, and what the token said (never what the publisher wants). */
export interface Mismatch {
  readonly claim: string;
  readonly detail: string;
}

export type MatchResult =
  | { readonly matches: true; readonly pin: { readonly repositoryId: string | null; readonly ownerId: string | null } }
  | { readonly matches: false; readonly mismatch: Mismatch; readonly sameRepository: boolean };

const said = (claims: IdTokenClaims, name: string): string => {
  const value = claim(claims, name);
  return value === null ? `the token has no ${name} claim` : `the token says ${JSON.stringify(value.slice(0, 200))}`;
};

/** The ids the publisher pinned, or null to pin the token's (first use). */
function checkPinned(claims: IdTokenClaims, pinned: string | null, name: string, what: string): Mismatch | null {
  if (pinned === null) return null;
  const value = claim(claims, name);
  if (value === pinned) return null;
  return {
    claim: name,
    detail: `${name} differs from the one this publisher trusts (${said(claims, name)}): the ${what} was deleted and made again under the same name, or this is another one; the owner can register it anew on the app's page`,
  };
}

/**
 * Whether the claims match one publisher. Checks the repository first: a mismatch there is
 * `sameRepository: false`, and tells nothing of the publisher; after it, the first claim that
 * differs is named, with what the token said.
 */
export function matchPublisher(claims: IdTokenClaims, publisher: TrustedPublisher): MatchResult {
  const fail = (mismatch: Mismatch, sameRepository = true): MatchResult => ({
    matches: false,
    mismatch,
    sameRepository,
  });
  if (publisher.provider === 'oidc') {
    for (const [name, value] of Object.entries(publisher.claims ?? {})) {
      if (claim(claims, name) !== value)
        return fail({ claim: name, detail: `${name} does not match (${said(claims, name)})` }, false);
    }
    return { matches: true, pin: { repositoryId: null, ownerId: null } };
  }
  const github = publisher.provider === 'github';
  const repositoryClaim = github ? 'repository' : 'project_path';
  if (!same(claim(claims, repositoryClaim), publisher.repository))
    return fail(
      {
        claim: repositoryClaim,
        detail: `no trusted publisher matches ${repositoryClaim} (${said(claims, repositoryClaim)})`,
      },
      false,
    );
  const idClaim = github ? 'repository_id' : 'project_id';
  const ownerClaim = github ? 'repository_owner_id' : 'namespace_id';
  const pinnedProblem =
    checkPinned(claims, publisher.repositoryId, idClaim, github ? 'repository' : 'project') ??
    checkPinned(claims, publisher.ownerId, ownerClaim, github ? "repository's owner" : "project's namespace");
  if (pinnedProblem !== null) return fail(pinnedProblem);
  if (github) {
    // The owner/name part ignores case, as GitHub does; the workflow's path is a file in git: exact.
    const workflowRef = claim(claims, 'workflow_ref') ?? '';
    const [repositoryPart = '', ...rest] = workflowRef.split('/.github/workflows/');
    const file = rest.join('/.github/workflows/');
    if (
      !same(repositoryPart, publisher.repository) ||
      !file.startsWith(`${publisher.workflow ?? ''}@`) ||
      (publisher.workflow ?? '') === ''
    )
      return fail({
        claim: 'workflow_ref',
        detail: `the workflow is not the trusted one (${said(claims, 'workflow_ref')})`,
      });
  } else if (publisher.ref !== null && !gitlabRefMatches(claims, publisher.ref)) {
    return fail({ claim: 'ref', detail: `the pipeline runs for another ref (${said(claims, 'ref')})` });
  }
  if (publisher.environment !== null && !same(claim(claims, 'environment'), publisher.environment))
    return fail({
      claim: 'environment',
      detail: `the job does not run in the trusted environment (${said(claims, 'environment')})`,
    });
  const repositoryId = claim(claims, idClaim);
  const ownerId = claim(claims, ownerClaim);
  return {
    matches: true,
    pin: {
      repositoryId: publisher.repositoryId === null ? repositoryId : null,
      ownerId: publisher.ownerId === null ? ownerId : null,
    },
  };
}

/**
 * A GitLab publisher's ref: `refs/heads/main` or `refs/tags/v1` match the job's `ref_path`; a
 * plain name (`main`) is a branch: the job's `ref` and `ref_type: branch` (a tag of the same
 * name, which anyone who may push tags can make, is not it).
 */
function gitlabRefMatches(claims: IdTokenClaims, ref: string): boolean {
  if (ref.startsWith('refs/')) return claim(claims, 'ref_path') === ref;
  return claim(claims, 'ref') === ref && claim(claims, 'ref_type') === 'branch';
}

/** Where the job ran, from its claims, as the release records it. */
export function provenanceOf(claims: IdTokenClaims, publisher: TrustedPublisher): Provenance {
  const get = (name: string): string | null => claim(claims, name);
  if (publisher.provider === 'github') {
    const repository = get('repository') ?? publisher.repository;
    const server =
      publisher.issuer === GITHUB_ISSUER ? 'https://github.com' : publisher.issuer.replace(/\/_services\/token$/, '');
    const runId = get('run_id');
    const attempt = get('run_attempt');
    return {
      provider: 'github',
      issuer: publisher.issuer,
      repository,
      commit: get('sha'),
      workflow: get('workflow_ref'),
      ref: get('ref'),
      environment: get('environment'),
      runId: runId === null ? null : attempt === null ? runId : `${runId}/${attempt}`,
      runUrl:
        runId === null
          ? null
          : `${server}/${repository}/actions/runs/${runId}${attempt === null ? '' : `/attempts/${attempt}`}`,
    };
  }
  if (publisher.provider === 'gitlab') {
    const repository = get('project_path') ?? publisher.repository;
    const pipeline = get('pipeline_id');
    return {
      provider: 'gitlab',
      issuer: publisher.issuer,
      repository,
      commit: get('sha'),
      workflow: get('ci_config_ref_uri'),
      ref: get('ref'),
      environment: get('environment'),
      runId: pipeline,
      runUrl: pipeline === null ? null : `${publisher.issuer}/${repository}/-/pipelines/${pipeline}`,
    };
  }
  return {
    provider: 'oidc',
    issuer: publisher.issuer,
    repository: get('repository') ?? get('sub') ?? '',
    commit: get('sha'),
    workflow: get('workflow') ?? null,
    ref: get('ref'),
    environment: get('environment'),
    runId: get('run_id') ?? get('jti'),
    runUrl: null,
  };
}
