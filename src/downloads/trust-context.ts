import tls from 'node:tls';

/** A TLS context that trusts Node's root certificates and some extra authorities: made on first use, then shared. */
export type TrustContext = () => tls.SecureContext;

/**
 * The container's one TLS context for `extraCa` (PEM: the tests' local authority), shared by every
 * client that downloads or asks an identity provider, and made when the first connection needs
 * it. Given as `ca` instead, each connection made its own from the 150 or so roots: 5 to 10 ms of
 * CPU a connection (a tenth of the test suite's own CPU went there).
 */
export function trustContext(extraCa: readonly string[]): TrustContext {
  let made: tls.SecureContext | undefined;
  return () => (made ??= tls.createSecureContext({ ca: [...tls.rootCertificates, ...extraCa] }));
}
