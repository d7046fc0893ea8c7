import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StoreMetrics } from '../metrics.ts';

/**
 * `GET /metrics` on a port of its own (APPSTORE_METRICS_PORT), for a scraper on a private
 * network: nothing else is served there. Resolves once listening.
 */
export async function startMetricsServer(
  metrics: StoreMetrics,
  host: string,
  port: number,
): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('only GET /metrics here\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => {
        response.writeHead(200, { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' });
        response.end(request.method === 'HEAD' ? undefined : text);
      },
      () => response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics could not be collected\n'),
    );
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
