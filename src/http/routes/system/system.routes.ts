import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Container } from '../../../container.ts';
import { AppError } from '../../../errors.ts';
import { isDatabaseReachable } from '../../../storage/database.ts';
import { errorResponse } from '../../schemas.ts';

const HEALTH_TIMEOUT_MS = 3000;

/** Operational routes: health for load balancers, the OpenAPI document for client authors. */
export async function systemRoutes(app: FastifyInstance, container: Container): Promise<void> {
  app.get('/healthz', {
    schema: {
      summary: 'Health: 200 when the database answers, 503 otherwise',
      tags: ['system'],
      response: {
        200: Type.Object({ status: Type.Literal('ok'), database: Type.Literal('ok') }),
        503: errorResponse('The database does not answer'),
      },
    },
    handler: async (_request, reply) => {
      const timeout = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), HEALTH_TIMEOUT_MS).unref());
      const reachable = await Promise.race([isDatabaseReachable(container.database.db), timeout]);
      if (!reachable) throw new AppError('database_unavailable', 'The database does not answer; the service cannot serve requests now.');
      reply.header('cache-control', 'no-store');
      return { status: 'ok' as const, database: 'ok' as const };
    },
  });

  let document: string | undefined;
  app.get('/api/v1/openapi.json', {
    schema: {
      summary: 'This API, as an OpenAPI 3.1 document built from the route schemas',
      tags: ['system'],
      response: { 200: Type.Object({ openapi: Type.String() }, { additionalProperties: true }) },
    },
    handler: async (_request, reply) => {
      document ??= JSON.stringify(app.swagger());
      return reply.type('application/json; charset=utf-8').send(document);
    },
  });
}
