import type { FastifyInstance, RouteOptions } from 'fastify';

export interface RegisteredRoute {
  readonly method: string;
  readonly url: string;
  readonly schema: RouteOptions['schema'];
}

const registries = new WeakMap<FastifyInstance, RegisteredRoute[]>();

/** Records every route as it is added, so tests can check that each one declares its schemas. */
export function trackRoutes(app: FastifyInstance): void {
  const routes: RegisteredRoute[] = [];
  registries.set(app, routes);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) routes.push({ method, url: route.url, schema: route.schema });
  });
}

export function registeredRoutes(app: FastifyInstance): readonly RegisteredRoute[] {
  return registries.get(app) ?? [];
}

const PROBED_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** The methods some route answers for this concrete path (empty: the path is unknown). */
export function allowedMethods(app: FastifyInstance, url: string): string[] {
  const path = url.split('?')[0] ?? '/';
  return PROBED_METHODS.filter((method) => app.findRoute({ method, url: path }) !== null);
}
