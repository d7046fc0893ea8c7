import type tls from 'node:tls';
import type * as Undici from 'undici';
import { namedExports } from '../domain/accounts/password-rules.ts';
import type { ProviderSettings } from '../config/external-login.ts';
import type { ExternalProvider } from '../domain/accounts/external-login.ts';
import { githubProvider } from './github-connector.ts';
import { oidcProvider, PROVIDER_TIMEOUT_SECONDS } from './oidc-connector.ts';
import type { ProviderFetch } from './oidc-connector.ts';

/** A fetch whose connections use `trust` (the tests' local authority besides Node's roots). Without it, Node's own (with NODE_EXTRA_CA_CERTS). */
function trustingFetch(trust: () => tls.SecureContext): ProviderFetch {
  // undici is loaded with the first request to a provider, not before the port opens (issue 55).
  let made: Promise<{ fetch: typeof Undici.fetch; dispatcher: Undici.Agent }> | undefined;
  const agent = () =>
    (made ??= import('undici')
      .then((module) => namedExports(module, 'Agent'))
      .then(({ Agent, fetch }) => ({
        fetch,
        dispatcher: new Agent({ connect: { secureContext: trust() } }),
      })));
  return async (url, options) => {
    const { fetch, dispatcher } = await agent();
    return fetch(url, { ...(options as Parameters<typeof fetch>[1]), dispatcher }) as unknown as Promise<Response>;
  };
}

/** The configured providers, by id, in the order of the sign-in page's buttons. */
export function externalProviders(
  settings: readonly ProviderSettings[],
  trust: (() => tls.SecureContext) | undefined,
  timeoutSeconds = PROVIDER_TIMEOUT_SECONDS,
): ReadonlyMap<string, ExternalProvider> {
  const fetch = trust === undefined ? undefined : trustingFetch(trust);
  return new Map(
    settings.map((entry) => [
      entry.id,
      entry.kind === 'github'
        ? githubProvider(entry, fetch, timeoutSeconds)
        : oidcProvider(entry, fetch, timeoutSeconds),
    ]),
  );
}
