/* The settings of the server's connections, as config.ts reads them and http/node-server.ts applies them. */

/** How long a client may take, and how many connections it may hold (docs/security.md). */
export interface ConnectionSettings {
  /** From the connection (or the previous response) to the end of the request's headers (10 s). */
  readonly headersTimeoutMs: number;
  /** From the connection to the end of the request's body (60 s). */
  readonly requestTimeoutMs: number;
  /** A kept-alive connection with no request in flight (30 s). */
  readonly idleTimeoutMs: number;
  /** Open connections from one client address at once (64; 0: no limit); trusted proxies are not counted. */
  readonly maxPerAddress: number;
}

/** The proxies trusted to name the client (APPSTORE_TRUST_PROXY): all, none, or addresses and ranges. */
export type TrustProxy = boolean | readonly string[];
