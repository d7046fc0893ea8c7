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
