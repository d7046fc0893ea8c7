import { Validator } from '@seriousme/openapi-schema-validator';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { registeredRoutes } from '../../src/http/route-registry.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';

describe(`health and OpenAPI (${DIALECT})`, () => {
  let server: TestServer;
  before(async () => {
    server = await createTestServer();
  });
  after(() => server.close());

  test('every route declares its response schemas, and its body schema when it takes one', () => {
    const routes = registeredRoutes(server.app);
    assert.ok(routes.length >= 5);
    for (const route of routes) {
      const schema = route.schema as { response?: Record<string, unknown>; body?: unknown; hide?: boolean } | undefined;
      const label = `${route.method} ${route.url}`;
      // Hidden routes are not part of the API (the catch-all OPTIONS route of @fastify/cors).
      if (schema?.hide === true) continue;
      assert.ok(schema?.response !== undefined, `${label} declares no response schema`);
      assert.ok(
        Object.keys(schema.response).some((status) => /^2/.test(status)),
        `${label} declares no success response`,
      );
      if (['POST', 'PUT', 'PATCH'].includes(route.method))
        assert.ok(schema.body !== undefined, `${label} declares no body schema`);
    }
  });

  test('the OpenAPI 3.1 document lists the routes', async () => {
    const response = await server.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    assert.equal(response.statusCode, 200);
    const document = response.json();
    assert.equal(document.openapi, '3.1.0');
    for (const path of ['/api/v1/categories.json', '/api/v1/platforms.json', '/healthz']) {
      assert.ok(document.paths[path]?.get, `${path} missing from the OpenAPI document`);
      assert.ok(document.paths[path].get.responses['200'], `${path} has no 200 response`);
    }
    assert.ok(document.components.schemas.Category);
    assert.ok(document.components.schemas.ErrorBody);
  });

  test('the OpenAPI document is valid OpenAPI 3.1 (a real validator) and says how each write authenticates', async () => {
    const document = (await server.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    const validator = new Validator();
    const result = await validator.validate(document);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 1)?.slice(0, 3000));
    assert.deepEqual(Object.keys(document.components.securitySchemes).sort(), ['basic', 'token']);
    assert.deepEqual(document.paths['/api/v1/apps/releases'].post.security, [{ basic: [] }, { token: [] }]);
    assert.equal(document.paths['/api/v1/apps.json'].get.security, undefined, 'listings need no account');
  });

  test('healthz and healthz/writes: 200 while the database answers', async () => {
    const response = await server.app.inject({ method: 'GET', url: '/healthz' });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), { status: 'ok', database: 'ok', listings: 'ok' });
    const writes = await server.app.inject({ method: 'GET', url: '/healthz/writes' });
    assert.equal(writes.statusCode, 200);
    assert.deepEqual(writes.json(), { status: 'ok', database: 'ok', secretKey: 'ok' });
  });

  test('the database gone: healthz 200 while the listings are held (they are served), healthz/writes 503 with Retry-After', async () => {
    assert.equal((await server.app.inject({ method: 'GET', url: '/api/v1/apps.json' })).statusCode, 200);
    await server.container.database.close();
    const response = await server.app.inject({ method: 'GET', url: '/healthz' });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), { status: 'ok', database: 'unavailable', listings: 'ok' });
    assert.equal(
      (await server.app.inject({ method: 'GET', url: '/api/v1/apps.json' })).statusCode,
      200,
      'served from memory',
    );
    const writes = await server.app.inject({ method: 'GET', url: '/healthz/writes' });
    assert.equal(writes.statusCode, 503);
    assert.equal(writes.json().code, 'database_unavailable');
    assert.equal(writes.headers['retry-after'], '5');
  });

  test('healthz: 503 with the error shape when the database is gone before any listing was held', async () => {
    const fresh = await createTestServer();
    try {
      await fresh.container.database.close();
      const response = await fresh.app.inject({ method: 'GET', url: '/healthz' });
      assert.equal(response.statusCode, 503);
      assert.equal(response.json().code, 'database_unavailable');
    } finally {
      await fresh.close().catch(() => undefined);
    }
  });
});
