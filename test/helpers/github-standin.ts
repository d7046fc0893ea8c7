import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fetch } from 'undici';
import { startArchiveServer, testCaAgent } from './https-archive-server.ts';

/** A GitHub user as the stand-in describes them (GET /user), with their addresses (GET /user/emails). */
export interface GithubPerson {
  readonly id: number;
  readonly login: string;
  readonly name: string | null;
  readonly emails: ReadonlyArray<{ email: string; primary: boolean; verified: boolean; visibility: string | null }>;
}

export interface GithubStandIn {
  /** https://localhost:PORT: GitHub Enterprise Server's layout (the web at /, the REST API at /api/v3). */
  readonly origin: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Who the browser is signed in to GitHub as, when it reaches the authorization page. */
  signedIn: GithubPerson | null;
  /** The last token request's form, as GitHub received it. */
  lastTokenRequest: URLSearchParams | null;
  /** Follows the authorization page as the signed-in person who approves the app: where GitHub sends the browser back. */
  authorize(authorizationUrl: string): Promise<URL>;
  close(): Promise<void>;
}

const json = (response: ServerResponse, status: number, body: unknown): void => {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
};

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A local stand-in for GitHub's documented OAuth web flow and its user and e-mail endpoints:
 * `GET /login/oauth/authorize`, `POST /login/oauth/access_token` (JSON when asked, and GitHub's
 * habit of answering a bad code with 200 and an `error` member), `GET /api/v3/user` and
 * `GET /api/v3/user/emails` with a bearer token. PKCE is checked when the request used it.
 */
export async function startGithubStandIn(): Promise<GithubStandIn> {
  const server = await startArchiveServer();
  const clientId = 'Iv1.test-client';
  const clientSecret = randomBytes(20).toString('hex');
  const codes = new Map<string, { person: GithubPerson; redirectUri: string; challenge: string | null }>();
  const tokens = new Map<string, GithubPerson>();

  server.handle('/login/oauth/authorize', (request, response) => {
    const query = new URL(request.url ?? '', server.origin).searchParams;
    const redirectUri = query.get('redirect_uri') ?? '';
    if (query.get('client_id') !== clientId) return json(response, 404, { message: 'Not Found' });
    if (standIn.signedIn === null)
      return void response.writeHead(200, { 'content-type': 'text/html' }).end('<p>Sign in to GitHub</p>');
    const code = randomBytes(10).toString('hex');
    codes.set(code, { person: standIn.signedIn, redirectUri, challenge: query.get('code_challenge') });
    const back = new URL(redirectUri);
    back.searchParams.set('code', code);
    back.searchParams.set('state', query.get('state') ?? '');
    response.writeHead(302, { location: back.href }).end();
  });

  server.handle('/login/oauth/access_token', (request, response) => {
    void readBody(request).then((body) => {
      const form = new URLSearchParams(body);
      standIn.lastTokenRequest = form;
      const code = codes.get(form.get('code') ?? '');
      const refuse = (error: string, description: string) =>
        json(response, 200, {
          error,
          error_description: description,
          error_uri: 'https://docs.github.com/apps/troubleshooting',
        });
      if (form.get('client_id') !== clientId || form.get('client_secret') !== clientSecret)
        return refuse('incorrect_client_credentials', 'The client_id and/or client_secret passed are incorrect.');
      if (code === undefined) return refuse('bad_verification_code', 'The code passed is incorrect or expired.');
      codes.delete(form.get('code') ?? '');
      if (form.get('redirect_uri') !== code.redirectUri)
        return refuse(
          'redirect_uri_mismatch',
          'The redirect_uri MUST match the registered callback URL for this application.',
        );
      const verifier = form.get('code_verifier');
      if (
        code.challenge !== null &&
        (verifier === null || createHash('sha256').update(verifier).digest('base64url') !== code.challenge)
      ) {
        return refuse('bad_verification_code', 'The code_verifier does not match the code_challenge.');
      }
      const token = `gho_${randomBytes(18).toString('hex')}`;
      tokens.set(token, code.person);
      json(response, 200, { access_token: token, token_type: 'bearer', scope: 'read:user,user:email' });
    });
  });

  const api = (path: string, answer: (person: GithubPerson) => unknown) =>
    server.handle(path, (request, response) => {
      const person = tokens.get((request.headers.authorization ?? '').replace(/^(Bearer|token) /i, ''));
      if (person === undefined)
        return json(response, 401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' });
      json(response, 200, answer(person));
    });
  api('/api/v3/user', (person) => ({
    id: person.id,
    login: person.login,
    name: person.name,
    email: person.emails.find((e) => e.visibility === 'public')?.email ?? null,
    type: 'User',
  }));
  api('/api/v3/user/emails', (person) => person.emails);

  const standIn: GithubStandIn = {
    origin: server.origin,
    clientId,
    clientSecret,
    signedIn: null,
    lastTokenRequest: null,
    async authorize(authorizationUrl) {
      const dispatcher = testCaAgent();
      try {
        const response = await fetch(authorizationUrl, { redirect: 'manual', dispatcher });
        const location = response.headers.get('location');
        if (response.status !== 302 || location === null)
          throw new Error(`the GitHub stand-in answered ${response.status}`);
        return new URL(location);
      } finally {
        void dispatcher.close();
      }
    },
    close: () => server.close(),
  };
  return standIn;
}
