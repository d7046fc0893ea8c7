import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import type { JWK, JWTPayload } from 'jose';
import { startArchiveServer } from './https-archive-server.ts';
import type { ArchiveServer } from './https-archive-server.ts';

type Key = { readonly kid: string; readonly privateKey: CryptoKey; readonly jwk: JWK };

async function newKey(kid: string = randomUUID()): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
}

export type IssuerName = 'github' | 'gitlab' | 'other';

/** One CI's issuer: its URL, its signing key (rotated on demand), and how many times its keys were read. */
export interface LocalIssuer {
  readonly url: string;
  keysFetched: number;
  /** A new key with a new kid; the JWKS then lists only it. */
  rotate(): Promise<void>;
  /** An ID token with these claims (iss, iat, nbf, exp and jti filled in unless given). */
  mint(claims: JWTPayload, options?: { forged?: boolean; now?: Date; lifetimeSeconds?: number }): Promise<string>;
}

/**
 * Local OpenID issuers over HTTPS (the test CA) shaped like GitHub Actions' and GitLab's: a
 * discovery document and a JWKS each, and ID tokens with their documented claims. GitHub's token
 * request endpoint is served too, as a workflow calls it (ACTIONS_ID_TOKEN_REQUEST_URL).
 */
export interface CiIssuers {
  readonly server: ArchiveServer;
  readonly github: LocalIssuer;
  readonly gitlab: LocalIssuer;
  readonly other: LocalIssuer;
  /** What a workflow's environment holds to ask for a token (GitHub's request URL and bearer). */
  actionsRequest(claims: JWTPayload): { url: string; bearer: string };
  close(): Promise<void>;
}

export async function startCiIssuers(): Promise<CiIssuers> {
  const server = await startArchiveServer();
  const make = async (name: IssuerName): Promise<LocalIssuer> => {
    const url = `${server.origin}/${name}`;
    let key = await newKey();
    const other = await newKey(key.kid);
    const issuer: LocalIssuer = {
      url,
      keysFetched: 0,
      async rotate() {
        key = await newKey();
      },
      async mint(claims, options = {}) {
        const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
        const signing = options.forged === true ? { ...other, kid: key.kid } : key;
        return new SignJWT({
          jti: randomUUID(),
          iss: url,
          iat: now,
          nbf: now,
          exp: now + (options.lifetimeSeconds ?? 300),
          ...claims,
        })
          .setProtectedHeader({ alg: 'RS256', kid: signing.kid, typ: 'JWT' })
          .sign(signing.privateKey);
      },
    };
    server.handle(`/${name}/.well-known/openid-configuration`, (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          issuer: url,
          jwks_uri: `${url}/.well-known/jwks`,
          id_token_signing_alg_values_supported: ['RS256'],
        }),
      );
    });
    server.handle(`/${name}/.well-known/jwks`, (_request, response) => {
      issuer.keysFetched += 1;
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ keys: [key.jwk] }));
    });
    return issuer;
  };
  const github = await make('github');
  const gitlab = await make('gitlab');
  const other = await make('other');
  const requests = new Map<string, JWTPayload>();
  server.handle('/github/token-request', (request, response) => {
    const bearer = /^bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1] ?? '';
    const claims = requests.get(bearer);
    const audience = new URL(request.url ?? '', server.origin).searchParams.get('audience');
    if (claims === undefined || audience === null) {
      response.writeHead(401).end('{"message":"unauthorized"}');
      return;
    }
    void github.mint({ ...claims, aud: audience }).then((value) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ count: value.length, value }));
    });
  });
  return {
    server,
    github,
    gitlab,
    other,
    actionsRequest(claims) {
      const bearer = randomUUID();
      requests.set(bearer, claims);
      return { url: `${server.origin}/github/token-request?api-version=2.0`, bearer };
    },
    close: () => server.close(),
  };
}

/** The claims of a GitHub Actions job (docs.github.com, "About security hardening with OpenID Connect"). */
export function githubClaims(overrides: JWTPayload & { repository?: string; workflow?: string } = {}): JWTPayload {
  const repository = overrides.repository ?? 'alice/news';
  const workflow = overrides.workflow ?? 'release.yml';
  const { workflow: _file, ...rest } = overrides;
  return {
    sub: `repo:${repository}:environment:release`,
    aud: 'https://store.example',
    ref: 'refs/tags/v1.0.0',
    sha: '4a8b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b',
    repository,
    repository_owner: repository.split('/')[0],
    repository_owner_id: '1001',
    repository_id: '2002',
    repository_visibility: 'public',
    run_id: '9001',
    run_number: '12',
    run_attempt: '1',
    runner_environment: 'github-hosted',
    actor: 'alice',
    actor_id: '1001',
    workflow: 'Release',
    workflow_ref: `${repository}/.github/workflows/${workflow}@refs/tags/v1.0.0`,
    workflow_sha: '4a8b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b',
    job_workflow_ref: `${repository}/.github/workflows/${workflow}@refs/tags/v1.0.0`,
    event_name: 'push',
    ref_type: 'tag',
    environment: 'release',
    ...rest,
  };
}

/** The claims of a GitLab CI job's id_token (docs.gitlab.com, "ID token authentication"). */
export function gitlabClaims(overrides: JWTPayload = {}): JWTPayload {
  const path = typeof overrides.project_path === 'string' ? overrides.project_path : 'group/news';
  return {
    sub: `project_path:${path}:ref_type:branch:ref:main`,
    aud: 'https://store.example',
    namespace_id: '72',
    namespace_path: path.split('/')[0],
    project_id: '20',
    project_path: path,
    user_id: '5',
    user_login: 'alice',
    user_email: 'alice@example.org',
    pipeline_id: '1212',
    pipeline_source: 'push',
    job_id: '1313',
    ref: 'main',
    ref_type: 'branch',
    ref_path: 'refs/heads/main',
    ref_protected: 'true',
    environment: 'production',
    environment_protected: 'true',
    runner_id: 1,
    runner_environment: 'gitlab-hosted',
    sha: '714a629c0b401fdce83e847fc9589983fc6f46bc',
    ci_config_ref_uri: `gitlab.com/${path}//.gitlab-ci.yml@refs/heads/main`,
    ci_config_sha: '714a629c0b401fdce83e847fc9589983fc6f46bc',
    ...overrides,
  };
}
