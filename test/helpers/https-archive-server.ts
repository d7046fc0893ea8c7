import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Agent } from 'undici';
import { ROOT } from './run-cli.ts';

const TLS = path.join(ROOT, 'test', 'fixtures', 'tls');
export const TEST_TLS_CA = fs.readFileSync(path.join(TLS, 'ca.crt'), 'utf8');
export const TEST_TLS_CA_FILE = path.join(TLS, 'ca.crt');

/** A dispatcher for undici's fetch that trusts the test CA: a client of the local HTTPS servers. */
export function testCaAgent(): Agent {
  return new Agent({ connect: { ca: [TEST_TLS_CA] } });
}

export type Handler = (request: IncomingMessage, response: ServerResponse) => void;

export interface ArchiveServer {
  /** https://localhost:PORT */
  readonly origin: string;
  readonly port: number;
  /** Serves `body` at `path` (replacing what was there). */
  serve(path: string, body: Buffer): void;
  handle(path: string, handler: Handler): void;
  close(): Promise<void>;
}

/** A local HTTPS server with the test CA's certificate for localhost, 127.0.0.1 and ::1. */
export async function startArchiveServer(options: { untrusted?: boolean } = {}): Promise<ArchiveServer> {
  const name = options.untrusted === true ? 'untrusted' : 'server';
  const routes = new Map<string, Handler>();
  const server = https.createServer(
    { key: fs.readFileSync(path.join(TLS, `${name}.key`)), cert: fs.readFileSync(path.join(TLS, `${name}.crt`)) },
    (request, response) => {
      const handler = routes.get((request.url ?? '').split('?')[0] ?? '');
      if (handler === undefined) {
        response.writeHead(404).end('not found');
        return;
      }
      handler(request, response);
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `https://localhost:${port}`,
    port,
    serve(at, body) {
      routes.set(at, (_request, response) =>
        response.writeHead(200, { 'content-type': 'application/gzip', 'content-length': body.length }).end(body),
      );
    },
    handle(at, handler) {
      routes.set(at, handler);
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
