import { createHash, timingSafeEqual } from 'node:crypto';
import { Type } from 'typebox';
import type { Container } from '../../../container.ts';
import { AppError, databaseUnavailable } from '../../../errors.ts';
import { errorResponses } from '../../schemas.ts';
import type { AppServer } from '../../types.ts';

const HEALTH_TIMEOUT_MS = 3000;

/** Operational routes: health for load balancers, the OpenAPI document for client authors. */
export async function systemRoutes(app: AppServer, container: Container): Promise<void> {
  const reachable = (): Promise<boolean> => {
    const timeout = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), HEALTH_TIMEOUT_MS).unref());
    return Promise.race([container.isDatabaseReachable(), timeout]);
  };

  // Liveness for proxies and load balancers: can this node serve the listings? From memory it
  // can while the database is down, so a database outage must not take every node out of a pool.
  app.get('/healthz', {
    schema: {
      summary:
        'Health: 200 while this node can serve the listings (from memory when the database is down); 503 otherwise',
      tags: ['system'],
      response: {
        200: Type.Object({
          status: Type.Literal('ok'),
          database: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
          listings: Type.Literal('ok'),
        }),
        ...errorResponses('database_unavailable'),
      },
    },
    handler: async (_request, reply) => {
      reply.header('cache-control', 'no-store');
      const database = await reachable();
      if (!database && !container.listings.servable)
        throw databaseUnavailable(
          'The database does not answer and this node holds no listings yet; it cannot serve requests now.',
        );
      return {
        status: 'ok' as const,
        database: database ? ('ok' as const) : ('unavailable' as const),
        listings: 'ok' as const,
      };
    },
  });

  // Readiness for writes: can this node register, publish, sign in? The database must answer and
  // the secret key must still be the store's (not rotated away while this node ran).
  app.get('/healthz/writes', {
    schema: {
      summary:
        "Health of writes: 200 when the database answers and this node runs with the store's secret key; 503 otherwise",
      tags: ['system'],
      response: {
        200: Type.Object({ status: Type.Literal('ok'), database: Type.Literal('ok'), secretKey: Type.Literal('ok') }),
        ...errorResponses('database_unavailable', 'restart_needed'),
      },
    },
    handler: async (_request, reply) => {
      reply.header('cache-control', 'no-store');
      if (!(await reachable()))
        throw databaseUnavailable(
          'The database does not answer: writes (registrations, publishes, sign-ins) are refused until it does. Listings are still served.',
        );
      await container.secretKeyWatch.check();
      return { status: 'ok' as const, database: 'ok' as const, secretKey: 'ok' as const };
    },
  });

  // Metrics on the main port only with a token (APPSTORE_METRICS_TOKEN); else 404, or on a port of their own.
  const metricsToken = container.config.metrics.token;
  if (metricsToken !== null) {
    const expected = createHash('sha256').update(`Bearer ${metricsToken}`).digest();
    app.get('/metrics', {
      schema: {
        summary: 'Metrics in the Prometheus text format (with the bearer token of APPSTORE_METRICS_TOKEN)',
        tags: ['system'],
        response: errorResponses('not_authenticated'),
      },
      handler: async (request, reply) => {
        const given = createHash('sha256')
          .update(request.headers.authorization ?? '')
          .digest();
        if (!timingSafeEqual(given, expected)) {
          reply.header('www-authenticate', 'Bearer realm="metrics"');
          throw new AppError(
            'not_authenticated',
            'Metrics need the header Authorization: Bearer <APPSTORE_METRICS_TOKEN>.',
          );
        }
        reply.header('cache-control', 'no-store');
        return reply.type(container.metrics.registry.contentType).send(await container.metrics.registry.metrics());
      },
    });
  }

  app.get('/api/v1/openapi.json', {
    schema: {
      summary: 'This API, as an OpenAPI 3.1 document built from the route schemas',
      tags: ['system'],
      response: { 200: Type.Object({ openapi: Type.String() }, { additionalProperties: true }) },
    },
    handler: async () => {
      const document = app.swagger();
      if (!('openapi' in document))
        throw new Error('@fastify/swagger made a Swagger 2 document; OpenAPI 3.1 is configured');
      return document;
    },
  });
}
