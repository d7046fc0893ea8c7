import fs from 'node:fs';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { decodeJwt, exportJWK, generateKeyPair, SignJWT } from 'jose';
import type { JWK, JWTPayload } from 'jose';
import type Provider from 'oidc-provider';
import { fetch } from 'undici';
import { testCaAgent } from './https-archive-server.ts';
import { ROOT } from './run-cli.ts';

const TLS = path.join(ROOT, 'test', 'fixtures', 'tls');

/** What the test says of a person at the provider: their claims (sub is the login). */
export type PersonClaims = Record<string, unknown>;

/** Rewrites the ID token the token endpoint hands out (a provider that misbehaves, or an attacker in its place). */
export type IdTokenTamper = (
  claims: JWTPayload,
  sign: {
    withProviderKey: (claims: JWTPayload) => Promise<string>;
    withOtherKey: (claims: JWTPayload) => Promise<string>;
  },
) => Promise<string>;

export interface LocalOidcProvider {
  /** https://localhost:PORT: the issuer, with discovery at /.well-known/openid-configuration. */
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** The people who can sign in, by login (their `sub`). */
  readonly people: Map<string, PersonClaims>;
  /** Set to rewrite the next ID tokens; null: the provider's own. */
  tamper: IdTokenTamper | null;
  /** Goes through the provider's own sign-in page as `login` (a person with a browser would) and returns where it sends the browser back. */
  signIn(authorizationUrl: string, login: string): Promise<URL>;
  /** Cancels at the provider's sign-in page instead: the provider answers with its error. */
  cancel(authorizationUrl: string): Promise<URL>;
  close(): Promise<void>;
}

/**
 * A real OpenID Provider (the certified `oidc-provider` package) in the test process, over HTTPS
 * with the test CA, with keys of its own: its development sign-in page accepts any login, and the
 * consent of the store's client is granted in advance.
 */
export async function startOidcProvider(options: {
  redirectUri: string | (() => string);
  clientId?: string;
  clientSecret?: string;
}): Promise<LocalOidcProvider> {
  let handle: (request: IncomingMessage, response: ServerResponse) => void = (_request, response) =>
    response.writeHead(503).end();
  const server = https.createServer(
    { key: fs.readFileSync(path.join(TLS, 'server.key')), cert: fs.readFileSync(path.join(TLS, 'server.crt')) },
    (request, response) => handle(request, response),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `https://localhost:${(server.address() as AddressInfo).port}`;
  const clientId = options.clientId ?? 'appstore';
  const clientSecret = options.clientSecret ?? 'a-client-secret-of-the-test-provider';
  const people = new Map<string, PersonClaims>();

  const signingKey = await keyPair('provider-key');
  const otherKey = await keyPair('provider-key'); // the same kid: only the signature tells them apart
  const claimsOf = (sub: string): PersonClaims & { sub: string } => ({ ...(people.get(sub) ?? {}), sub });

  /** The provider, made at its first request: the store's callback address may be known only once the store runs. */
  const build = async (): Promise<Provider> => {
    const redirectUri = typeof options.redirectUri === 'string' ? options.redirectUri : options.redirectUri();
    const provider = await quietly(
      async () =>
        new (await import('oidc-provider')).default(issuer, {
          clients: [
            {
              client_id: clientId,
              client_secret: clientSecret,
              redirect_uris: [redirectUri],
              grant_types: ['authorization_code'],
              response_types: ['code'],
              token_endpoint_auth_method: 'client_secret_basic',
            },
          ],
          jwks: { keys: [signingKey.privateJwk] },
          cookies: { keys: ['test-provider-cookie-key'] },
          claims: {
            openid: ['sub'],
            email: ['email', 'email_verified'],
            profile: ['name', 'given_name', 'family_name', 'preferred_username'],
            groups: ['groups'],
          },
          findAccount: async (_ctx: unknown, sub: string) => ({ accountId: sub, claims: async () => claimsOf(sub) }),
          // The store's client is trusted: no consent page.
          loadExistingGrant: async (ctx) => {
            const accountId = ctx.oidc.session?.accountId;
            const client = ctx.oidc.client;
            if (accountId === undefined || client === undefined) return undefined;
            const grant = new ctx.oidc.provider.Grant({ clientId: client.clientId, accountId });
            grant.addOIDCScope('openid email profile groups');
            await grant.save();
            return grant;
          },
          ttl: { Interaction: 600, Grant: 600, Session: 600, AccessToken: 600, IdToken: 600 },
        } as ConstructorParameters<typeof Provider>[1]),
    );
    provider.on('server_error', (_ctx: unknown, error: Error) =>
      process.stderr.write(`test OIDC provider: ${error.stack ?? String(error)}\n`),
    );
    provider.use(async (ctx, next) => {
      await next();
      const body = ctx.body as { id_token?: unknown } | undefined;
      if (ctx.path === '/token' && local.tamper !== null && typeof body?.id_token === 'string') {
        const claims = decodeJwt(body.id_token);
        body.id_token = await local.tamper(claims, {
          withProviderKey: (c) => sign(c, signingKey),
          withOtherKey: (c) => sign(c, otherKey),
        });
      }
    });
    return provider;
  };
  let built: Promise<(request: IncomingMessage, response: ServerResponse) => void> | null = null;
  handle = (request, response) => {
    built ??= build().then((provider) => provider.callback());
    void built.then((callback) => callback(request, response));
  };

  const dispatcher = testCaAgent();
  /** A browser of its own at the provider: cookies kept, redirects followed by hand until one leaves for the store. */
  async function browse(
    authorizationUrl: string,
    act: (page: string, url: URL) => { url: string; body?: URLSearchParams },
  ): Promise<URL> {
    const jar = new Map<string, string>();
    let request: { url: string; body?: URLSearchParams } = { url: authorizationUrl };
    for (let step = 0; step < 20; step += 1) {
      const response = await fetch(request.url, {
        method: request.body === undefined ? 'GET' : 'POST',
        headers: {
          cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; '),
          ...(request.body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
        },
        ...(request.body === undefined ? {} : { body: request.body.toString() }),
        redirect: 'manual',
        dispatcher,
      });
      for (const cookie of response.headers.getSetCookie()) {
        const [pair = ''] = cookie.split(';');
        const at = pair.indexOf('=');
        jar.set(pair.slice(0, at), pair.slice(at + 1));
      }
      const location = response.headers.get('location');
      if (location !== null) {
        const next = new URL(location, request.url);
        await response.body?.cancel();
        if (!next.href.startsWith(issuer)) return next;
        request = { url: next.href };
        continue;
      }
      const page = await response.text();
      if (response.status !== 200)
        throw new Error(`the test provider answered ${response.status}: ${page.slice(0, 500)}`);
      request = act(page, new URL(request.url));
    }
    throw new Error('the test provider never sent the browser back');
  }

  const local: LocalOidcProvider = {
    issuer,
    clientId,
    clientSecret,
    people,
    tamper: null,
    signIn: (authorizationUrl, login) =>
      browse(authorizationUrl, (page, url) => {
        const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
        if (action === undefined) throw new Error(`no form on the provider's page: ${page.slice(0, 500)}`);
        return {
          url: new URL(action.replace(/&amp;/g, '&'), url).href,
          body: new URLSearchParams({ prompt: 'login', login, password: 'any password' }),
        };
      }),
    cancel: (authorizationUrl) =>
      browse(authorizationUrl, (page, url) => {
        const abort = /href="([^"]*\/abort)"/.exec(page)?.[1];
        if (abort === undefined) throw new Error(`no cancel link on the provider's page: ${page.slice(0, 500)}`);
        return { url: new URL(abort, url).href };
      }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
        void dispatcher.close();
      }),
  };
  return local;
}

/**
 * Runs `work` without the package's console notices: they say a development set-up is in use
 * (memory adapter, development sign-in page, a Node.js it does not list), which is what a test wants.
 */
async function quietly<T>(work: () => Promise<T>): Promise<T> {
  const { warn, info } = console;
  console.warn = () => undefined;
  console.info = () => undefined;
  try {
    return await work();
  } finally {
    console.warn = warn;
    console.info = info;
  }
}

interface KeyPair {
  readonly privateJwk: JWK;
  readonly privateKey: CryptoKey;
  readonly kid: string;
}

async function keyPair(kid: string): Promise<KeyPair> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' };
  return { privateJwk, privateKey: privateKey as CryptoKey, kid };
}

async function sign(claims: JWTPayload, key: KeyPair): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: key.kid, typ: 'JWT' }).sign(key.privateKey);
}
