import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import type { ConnectionSettings, TrustProxy } from '../config/connections.ts';
import type { RefusalLog } from './protocol-errors.ts';
import { answerBeforeRouting, checkBeforeRouting, writeRawRefusal } from './protocol-errors.ts';

/** What the server needs of the configuration. */
export interface NodeServerSettings {
  readonly connections: ConnectionSettings;
  readonly trustProxy: TrustProxy;
}

type Handler = (request: http.IncomingMessage, response: http.ServerResponse) => void;

/** Node checks the header and request deadlines this often: a fraction of the shortest one. */
function checkingInterval(headersTimeoutMs: number): number {
  return Math.max(50, Math.min(1000, Math.floor(headersTimeoutMs / 4)));
}

/** `::ffff:10.0.0.1` is the IPv4 address it maps. */
function plainAddress(address: string): string {
  return address.startsWith('::ffff:') && net.isIPv4(address.slice(7)) ? address.slice(7) : address;
}

/** Whether a connection comes from a trusted proxy (whose connections carry many clients). */
export function trustedProxyMatcher(trustProxy: TrustProxy): (address: string) => boolean {
  if (trustProxy === true) return () => true;
  if (trustProxy === false) return () => false;
  const list = new net.BlockList();
  for (const entry of trustProxy) {
    const [address = '', prefix] = entry.split('/');
    const family = net.isIPv4(address) ? 'ipv4' : 'ipv6';
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  return (address) => {
    const plain = plainAddress(address);
    return list.check(plain, net.isIPv4(plain) ? 'ipv4' : 'ipv6');
  };
}

/**
 * Refuses connections over the per-address limit with a 429 and closes them. Connections from
 * trusted proxies are not counted: behind a proxy, that is where per-client limits belong.
 */
function limitConnectionsPerAddress(
  server: http.Server,
  maxPerAddress: number,
  isTrustedProxy: (address: string) => boolean,
  log: RefusalLog,
): void {
  const open = new Map<string, number>();
  server.on('connection', (socket: net.Socket) => {
    const address = plainAddress(socket.remoteAddress ?? '');
    if (address === '' || isTrustedProxy(address)) return;
    const count = (open.get(address) ?? 0) + 1;
    if (count > maxPerAddress) {
      const detail = `Too many open connections from your address (at most ${maxPerAddress}): reuse kept-alive connections, or open fewer at once.`;
      writeRawRefusal(socket, { code: 'rate_limited', detail }, log, { 'Retry-After': '1' });
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
  });
}

/**
 * The Node HTTP server under fastify (its `serverFactory`): deadlines for headers, body and idle
 * keep-alive; Host and Expect checked before routing, with the contract's error body; and the
 * per-address connection limit. docs/security.md explains each limit.
 */
export function createNodeServer(handler: Handler, settings: NodeServerSettings, log: RefusalLog): http.Server {
  const { headersTimeoutMs, requestTimeoutMs, idleTimeoutMs, maxPerAddress } = settings.connections;
  const server = http.createServer(
    {
      headersTimeout: headersTimeoutMs,
      requestTimeout: requestTimeoutMs,
      connectionsCheckingInterval: checkingInterval(headersTimeoutMs),
      // Checked by checkBeforeRouting, which answers with the contract's body instead of an empty 400.
      requireHostHeader: false,
    },
    (request, response) => {
      const refusal = checkBeforeRouting(request);
      if (refusal === null) handler(request, response);
      else answerBeforeRouting(request, response, refusal, log);
    },
  );
  server.keepAliveTimeout = idleTimeoutMs;
  // A client that half-closes after sending (shutdown(SHUT_WR), `curl` with some proxies, nc -N)
  // still gets its answer: by default Node aborts every request in flight on the connection's
  // end, so a route that awaits anything never answered. The connection closes after the answer.
  Object.assign(server, { httpAllowHalfOpen: true }); // a property of http.Server that @types/node does not declare
  // CONNECT (a proxy's method) bypasses the request handler: Node would close the connection
  // without a word.
  server.on('connect', (request: http.IncomingMessage, socket: Duplex) => {
    writeRawRefusal(
      socket,
      {
        code: 'invalid_request',
        detail: `This server is not a proxy: CONNECT ${String(request.url).slice(0, 100)} is not supported. Send GET, HEAD, POST or DELETE for a path of the store.`,
      },
      log,
    );
  });
  // Any Expect but 100-continue: Node would answer an empty 417.
  server.on('checkExpectation', (request: http.IncomingMessage, response: http.ServerResponse) => {
    answerBeforeRouting(
      request,
      response,
      checkBeforeRouting(request) ?? {
        code: 'expectation_failed',
        detail: 'This server supports only Expect: 100-continue.',
      },
      log,
    );
  });
  if (maxPerAddress > 0)
    limitConnectionsPerAddress(server, maxPerAddress, trustedProxyMatcher(settings.trustProxy), log);
  return server;
}
