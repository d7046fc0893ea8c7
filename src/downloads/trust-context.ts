import tls from 'node:tls';

/** A TLS context that trusts Node's root certificates and some extra authorities: made on first use, then shared. */
export type TrustContext = () => tls.SecureContext;

/** The contexts made in this process, by their extra authorities' PEM text. */
const made = new Map<string, tls.SecureContext>();

/**
 * The TLS context for `extraCa` (PEM: the tests' local authority), shared by every client that
 * downloads or asks an identity provider, and made when the first connection needs it. Given as
 * `ca` instead, each connection made its own from the 150 or so roots: 5 to 10 ms of CPU a
 * connection (a tenth of the test suite's own CPU went there). One context serves every container
 * of the process that trusts the same authorities (a context is only read once made): making one
 * from the roots costs about 30 ms, and the test suite builds hundreds of containers.
 */
export function trustContext(extraCa: readonly string[]): TrustContext {
  const key = extraCa.join('\n');
  return () => {
    let context = made.get(key);
    if (context === undefined) {
      context = tls.createSecureContext({ ca: [...tls.rootCertificates, ...extraCa] });
      made.set(key, context);
    }
    return context;
  };
}
