import { createHash, timingSafeEqual } from 'node:crypto';
import { Type } from 'typebox';
import type { Container } from '../../../container.ts';
import { AppError } from '../../../errors.ts';
import { errorResponses } from '../../schemas.ts';
import type { AppServer } from '../../types.ts';

const HEALTH_TIMEOUT_MS = 3000;

/** Operational routes: health for load balancers, the OpenAPI document for client authors. */
export async function systemRoutes(app: AppServer, container: Container): Promise<void> {
  app.get('/healthz', {
    schema: {
      summary: 'Health: 200 when the database answers, 503 otherwise',
      tags: ['system'],
      response: {
        200: Type.Object({ status: Type.Literal('ok'), database: Type.Literal('ok') }),
        ...errorResponses('database_unavailable'),
      },
    },
    handler: async (_request, reply) => {
      const timeout = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), HEALTH_TIMEOUT_MS).unref());
      const reachable = await Promise.race([container.isDatabaseReachable(), timeout]);
      if (!reachable) throw new AppError('database_unavailable', 'The database does not answer; the service cannot serve requests now.');
      reply.header('cache-control', 'no-store');
      return { status: 'ok' as const, database: 'ok' as const };
    },
  });

  // Metrics on the main port only with a token (APPSTORE_METRICS_TOKEN); else 404, or on a port of their own.
  const metricsToken = container.config.metrics.token;
  if (metricsToken !== null) {
    const expected = createHash('sha256').update(`Bearer ${metricsToken}`).digest();
    app.get('/metrics', {
      schema: { summary: 'Metrics in the Prometheus text format (with the bearer token of APPSTORE_METRICS_TOKEN)', tags: ['system'], response: errorResponses('not_authenticated') },
      handler: async (request, reply) => {
        const given = createHash('sha256').update(request.headers.authorization ?? '').digest();
        if (!timingSafeEqual(given, expected)) {
          reply.header('www-authenticate', 'Bearer realm="metrics"');
          throw new AppError('not_authenticated', 'Metrics need the header Authorization: Bearer <APPSTORE_METRICS_TOKEN>.');
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
      if (!('openapi' in document)) throw new Error('@fastify/swagger made a Swagger 2 document; OpenAPI 3.1 is configured');
      return document;
    },
  });
}
