import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.ts';
import { allowedMethods } from './route-registry.ts';

const ALLOWED_HEADERS = 'Accept, Authorization, Content-Type, If-None-Match, If-Modified-Since, Origin, X-Requested-With';
const EXPOSED_HEADERS = 'ETag, Last-Modified, Content-Type, X-Content-Type-Options, X-Request-Id, Retry-After';

function isApiPath(url: string): boolean {
  return url.replace(/\/{2,}/g, '/').startsWith('/api/');
}

/**
 * CORS on /api/*: any origin may read (listings are public; authenticated routes take an
 * Authorization header, never cookies, across origins). Preflights are answered for paths that
 * exist, with the methods they support.
 */
export function installCors(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    if (!isApiPath(request.url)) return;
    reply.header('access-control-allow-origin', '*');
    reply.header('access-control-expose-headers', EXPOSED_HEADERS);
  });

  app.route({
    method: 'OPTIONS',
    url: '/api/*',
    schema: {
      hide: true,
      summary: 'CORS preflight and method discovery for every /api path',
      response: { 204: { type: 'null', description: 'The path exists; see Allow and the CORS headers' } },
    },
    handler: async (request, reply) => {
      const methods = allowedMethods(app, request.url);
      if (methods.length === 0) {
        throw new AppError('not_found', 'No such path under /api/v1/.');
      }
      const allow = [...methods, 'OPTIONS'].join(', ');
      reply.header('allow', allow);
      if (request.headers['access-control-request-method'] !== undefined) {
        reply.header('access-control-allow-methods', allow);
        reply.header('access-control-allow-headers', ALLOWED_HEADERS);
        reply.header('access-control-max-age', '86400');
      }
      return reply.code(204).send();
    },
  });
}
