import tls from 'node:tls';

/**
 * One TLS context that trusts Node's root certificates and `extraCa` (PEM: the tests' local
 * authority, or an operator's), made once for every connection it serves. Given as `ca` instead,
 * each connection made its own from the 150 or so roots: 5 to 10 ms of CPU a connection (a
 * tenth of the test suite's own CPU went there).
 */
export function trustContext(extraCa: readonly string[]): tls.SecureContext {
  return tls.createSecureContext({ ca: [...tls.rootCertificates, ...extraCa] });
}
