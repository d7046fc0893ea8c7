import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildServer } from '../../../src/app.ts';
import { loadConfig } from '../../../src/config/config.ts';
import { createContainer } from '../../../src/container.ts';
import { createTestDatabase } from '../../helpers/test-database.ts';
import {
  assertLowerCaseHeaderNames,
  compileWhenIdle,
  lazySchemaCompilers,
} from '../../../src/http/lazy-schema-compilers.ts';

const AJV_OPTIONS = { customOptions: { allErrors: true }, plugins: [] };

type Compile = (route: Record<string, unknown>) => (...args: unknown[]) => unknown;

function validatorOf(
  compilers: ReturnType<typeof lazySchemaCompilers>,
  schema: unknown,
  httpPart = 'querystring',
): ((data: unknown, context?: unknown) => boolean) & { errors?: unknown; schemaEnv?: unknown } {
  const build = compilers.compilersFactory.buildValidator as unknown as (
    external: unknown,
    options: unknown,
  ) => Compile;
  return build({}, AJV_OPTIONS)({ schema, method: 'GET', url: '/x', httpPart }) as never;
}

function serializerOf(compilers: ReturnType<typeof lazySchemaCompilers>, schema: unknown): (data: unknown) => string {
  const build = compilers.compilersFactory.buildSerializer as unknown as (
    external: unknown,
    options: unknown,
  ) => Compile;
  return build({}, {})({ schema, method: 'GET', url: '/x', httpStatus: '200' }) as never;
}

describe('route schemas compiled on first use', () => {
  it('a validator compiles when first called, answers as Ajv does and passes on its errors', () => {
    const compilers = lazySchemaCompilers();
    const validate = validatorOf(compilers, {
      type: 'object',
      properties: { page: { type: 'integer', minimum: 1 } },
      required: ['page'],
    });
    assert.equal(compilers.waiting, 1);
    assert.ok(validate.schemaEnv, 'Fastify hands Ajv validators the request as the parent: the wrapper says it is one');
    assert.equal(validate({ page: 0 }), false);
    assert.equal(compilers.waiting, 0);
    const errors = validate.errors as Array<{ instancePath: string; keyword: string }>;
    assert.deepEqual(
      errors.map((e) => [e.instancePath, e.keyword]),
      [['/page', 'minimum']],
    );
    assert.equal(validate({ page: 2 }), true);
    assert.equal(validate.errors, null);
  });

  it('headers that are optional strings and nothing more need no Ajv: Node gives each as a string', () => {
    const compilers = lazySchemaCompilers();
    const strings = {
      type: 'object',
      properties: {
        'if-none-match': { type: 'string', description: 'ETag of a previous response' },
        'accept-encoding': { type: 'string' },
      },
    };
    const validate = validatorOf(compilers, strings, 'headers');
    assert.equal(compilers.waiting, 0, 'nothing to compile');
    assert.equal(validate({ 'if-none-match': '"a"', host: 'x' }), true);
    assert.equal(validate({}), true);
    // Anything more than that is Ajv's to check, as before (other properties are removed by it).
    for (const [what, schema, headers, valid] of [
      [
        'a pattern',
        { type: 'object', properties: { 'x-a': { type: 'string', pattern: '^a$' } } },
        { 'x-a': 'b' },
        false,
      ],
      ['a required header', { ...strings, required: ['if-none-match'] }, {}, false],
      ['other properties', { ...strings, additionalProperties: false }, { host: 'x' }, true],
      ['a number', { type: 'object', properties: { 'x-n': { type: 'integer' } } }, { 'x-n': 'a' }, false],
    ] as const) {
      const checked = validatorOf(compilers, schema, 'headers');
      assert.equal(compilers.waiting, 1, what);
      assert.equal(checked({ ...headers }), valid, what);
      assert.equal(compilers.waiting, 0, what);
    }
    assert.equal(compilers.waiting, 0);
    const query = validatorOf(compilers, strings, 'querystring');
    assert.equal(compilers.waiting, 1, 'only headers: a query string may repeat a name (an array)');
    assert.equal(query({ 'if-none-match': ['a', 'b'] }), false);
  });

  it('a serializer compiles when first called and writes what fast-json-stringify writes', () => {
    const compilers = lazySchemaCompilers();
    const serialize = serializerOf(compilers, {
      type: 'object',
      properties: { id: { type: 'string' }, n: { type: 'integer' } },
    });
    assert.equal(compilers.waiting, 1);
    assert.equal(serialize({ id: 'a"b', n: 3, secret: 'x' }), '{"id":"a\\"b","n":3}');
    assert.equal(compilers.waiting, 0);
  });

  it('compileWaiting compiles within its budget, and a schema that cannot compile is reported once and waits no more', () => {
    const compilers = lazySchemaCompilers();
    validatorOf(compilers, { type: 'string' });
    const broken = validatorOf(compilers, { type: 'no such type' });
    serializerOf(compilers, { type: 'integer' });
    assert.equal(compilers.waiting, 3);
    const failures: unknown[] = [];
    assert.equal(
      compilers.compileWaiting(0, (error) => failures.push(error)),
      false,
      'a budget of 0 compiles one schema, then stops',
    );
    assert.equal(compilers.waiting, 2);
    assert.equal(
      compilers.compileWaiting(Number.POSITIVE_INFINITY, (error) => failures.push(error)),
      true,
    );
    assert.equal(failures.length, 1);
    assert.match(String(failures[0]), /schema is invalid: data\/type/);
    assert.throws(() => broken('x'), Error, 'the route itself still meets the error');
    assert.equal(compilers.waiting, 0);
  });

  it('compileWhenIdle starts after what it waits for, says when it is done, and stops when told', async () => {
    const compilers = lazySchemaCompilers();
    for (let i = 0; i < 5; i++)
      validatorOf(compilers, { type: 'object', properties: { [`p${i}`]: { type: 'string' } } });
    let release: () => void = () => undefined;
    const first = new Promise<void>((resolve) => (release = resolve));
    let doneWith = -1;
    const done = new Promise<void>((resolve) => {
      const running = compileWhenIdle(compilers, first, () => assert.fail('nothing fails here'), {
        startAfterMs: 0,
        done: () => {
          doneWith = compilers.waiting;
          running.stop();
          resolve();
        },
      });
    });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(compilers.waiting, 5, 'nothing is compiled before the first render is over');
    release();
    // compileWhenIdle's timer is unref'd (a stopping process does not wait for it): this one keeps
    // the test's process running until it has fired, as a server's open port does.
    const alive = setInterval(() => undefined, 1000);
    await done.finally(() => clearInterval(alive));
    assert.equal(doneWith, 0, 'done once every schema is compiled');

    const other = lazySchemaCompilers();
    validatorOf(other, { type: 'string' });
    const stopped = compileWhenIdle(other, Promise.resolve(), () => undefined, { startAfterMs: 0 });
    stopped.stop();
    for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setTimeout(resolve, 1));
    assert.equal(other.waiting, 1, 'stopped before its first slice');

    const later = lazySchemaCompilers();
    validatorOf(later, { type: 'string' });
    const delayed = compileWhenIdle(later, Promise.resolve(), () => undefined, { startAfterMs: 60_000 });
    for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setTimeout(resolve, 1));
    assert.equal(later.waiting, 1, 'nothing is compiled before the delay has passed');
    delayed.stop();
  });

  it('a header schema must name its headers in lower case, as Node gives them (Fastify lower-cases them only with its own compilers)', () => {
    assertLowerCaseHeaderNames({
      method: 'GET',
      url: '/ok',
      schema: { headers: { type: 'object', properties: { 'if-none-match': { type: 'string' } } } },
    });
    assertLowerCaseHeaderNames({ method: 'GET', url: '/none' });
    assert.throws(
      () =>
        assertLowerCaseHeaderNames({
          method: 'GET',
          url: '/x',
          schema: {
            headers: {
              type: 'object',
              properties: { 'If-None-Match': { type: 'string' }, accept: { type: 'string' } },
            },
          },
        }),
      /GET \/x: header schema names must be in lower case \(If-None-Match\)/,
    );
  });

  it("every route's schemas compile: none waits for a request to find it broken", async () => {
    const database = await createTestDatabase();
    const handle = await database.open();
    const container = createContainer(loadConfig(database.env), { database: handle });
    const schemaCompilers = lazySchemaCompilers();
    const app = await buildServer(container, { logger: false, schemaCompilers });
    try {
      await app.ready();
      assert.ok(schemaCompilers.waiting > 100, `the routes' schemas wait to be compiled (${schemaCompilers.waiting})`);
      const failures: unknown[] = [];
      assert.equal(
        schemaCompilers.compileWaiting(Number.POSITIVE_INFINITY, (error) => failures.push(error)),
        true,
      );
      assert.deepEqual(failures, []);
    } finally {
      await app.close();
      await database.dispose();
    }
  });
});
