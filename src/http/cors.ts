import cors from '@fastify/cors';
import type { FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import { allowedMethods } from './route-registry.ts';

const API = {
  origin: '*',
  allowedHeaders: [
    'Accept',
    'Authorization',
    'Content-Type',
    'If-None-Match',
    'If-Modified-Since',
    'Origin',
    'X-Requested-With',
  ],
  exposedHeaders: ['ETag', 'Last-Modified', 'Content-Type', 'X-Content-Type-Options', 'X-Request-Id', 'Retry-After'],
  maxAge: 86400,
  strictPreflight: false,
} as const satisfies FastifyCorsOptions;

/** `/api/…`, doubled slashes tolerated as the router tolerates them. */
export function isApiPath(url: string): boolean {
  return url.replace(/\/{2,}/g, '/').startsWith('/api/');
}

/**
 * The CORS headers of a simple (non-preflight) response, for answers made outside fastify's
 * hooks (protocol errors): the same as @fastify/cors sets on /api/ paths.
 */
export function corsHeadersFor(url: string): Record<string, string> {
  if (!isApiPath(url)) return {};
  return { 'access-control-allow-origin': API.origin, 'access-control-expose-headers': API.exposedHeaders.join(', ') };
}

/**
 * CORS on /api/* through @fastify/cors: any origin may read (listings are public; authenticated
 * routes take an Authorization header, never cookies, across origins). A preflight is answered
 * for a path that exists, with the methods it supports; for any other path the routes answer
 * (404). Pages and /login are same-origin only.
 */
export async function installCors(app: FastifyInstance): Promise<void> {
  await app.register(cors, {
    hideOptionsRoute: true,
    delegator: (request, callback) => {
      if (!isApiPath(request.url)) return callback(null, { origin: false });
      // Only a preflight needs the path's methods: the hot GET path stays a constant.
      if (request.method !== 'OPTIONS') return callback(null, API);
      const methods = allowedMethods(app, request.url);
      callback(null, { ...API, preflight: methods.length > 0, methods: [...methods, 'OPTIONS'] });
    },
  });
}
