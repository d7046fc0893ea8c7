import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { ROOT } from './run-cli.ts';

export interface HttpsFront {
  /** https://localhost:PORT */
  readonly origin: string;
  /** Requests seen, by path (with query). */
  readonly seen: string[];
  /** While false, every request is cut off (the upstream is down). */
  up: boolean;
  close(): Promise<void>;
}

/**
 * A store instance reached over HTTPS, as a mirror reaches its upstream: a local server with the
 * test CA's certificate that hands every request to the instance's `inject()`.
 */
export async function startHttpsFront(app: FastifyInstance): Promise<HttpsFront> {
  const tls = path.join(ROOT, 'test', 'fixtures', 'tls');
  const front: { up: boolean; seen: string[] } = { up: true, seen: [] };
  const server = https.createServer(
    { key: fs.readFileSync(path.join(tls, 'server.key')), cert: fs.readFileSync(path.join(tls, 'server.crt')) },
    (request, response) => {
      front.seen.push(request.url ?? '');
      if (!front.up) {
        request.socket.destroy();
        return;
      }
      const headers = Object.fromEntries(
        Object.entries(request.headers).filter(([, v]) => typeof v === 'string'),
      ) as Record<string, string>;
      app
        .inject({ method: (request.method ?? 'GET') as 'GET', url: request.url ?? '/', headers })
        .then((answer) => {
          const out = Object.fromEntries(
            Object.entries(answer.headers).filter(([name]) => name !== 'transfer-encoding' && name !== 'connection'),
          );
          response.writeHead(answer.statusCode, out as Record<string, string>).end(answer.rawPayload);
        })
        .catch(() => response.writeHead(500).end());
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(front, {
    origin: `https://localhost:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
