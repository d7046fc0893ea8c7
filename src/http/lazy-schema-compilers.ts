import { AjvCompiler } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
type ValidatorBuilder = NonNullable<CompilersFactory['buildValidator']>;
type SerializerBuilder = NonNullable<CompilersFactory['buildSerializer']>;
type Validator = ReturnType<ReturnType<ValidatorBuilder>>;
type Serializer = ReturnType<ReturnType<SerializerBuilder>>;

/**
 * Fastify's own schema compilers (Ajv for requests, fast-json-stringify for responses), each
 * route's functions compiled when first used instead of before the port opens. Compiling every
 * route's schemas took about half a second of each start on the bench machine (docs/benchmarks.md),
 * most of it for responses no request had asked for yet; a route's first request now pays for its
 * own schemas (a few milliseconds), and `compileWaiting` compiles the rest when the server has
 * nothing better to do, so the routes' schemas are still all checked soon after every start.
 *
 * The functions are Fastify's defaults, built from the same options and shared schemas, so what
 * they accept, refuse and write is unchanged. What Fastify reads of a validator besides calling
 * it is passed on: `errors` after each call, and `schemaEnv`, which makes Fastify hand Ajv the
 * request as the value's parent (Ajv validators always have it).
 */
export interface LazySchemaCompilers {
  readonly compilersFactory: CompilersFactory;
  /** Schemas not compiled yet. */
  readonly waiting: number;
  /**
   * Compiles waiting schemas until `budgetMs` has passed; true when none are left. A schema that
   * cannot be compiled is reported and no longer waits (its route's requests fail with a 500
   * naming the error, as they try it again).
   */
  compileWaiting(budgetMs: number, failed: (error: unknown) => void): boolean;
}

export function lazySchemaCompilers(): LazySchemaCompilers {
  const waiting = new Set<() => void>();
  const buildValidator = AjvCompiler() as unknown as ValidatorBuilder;
  const buildSerializer = SerializerSelector() as unknown as SerializerBuilder;

  /** `compile`'s result, made on the first call (and waiting in `waiting` until then). */
  const onFirstUse = <T>(compile: () => T): (() => T) => {
    let compiled: { readonly value: T } | undefined;
    const ensure = (): T => {
      if (compiled === undefined) {
        compiled = { value: compile() };
        waiting.delete(ensure);
      }
      return compiled.value;
    };
    waiting.add(ensure);
    return ensure;
  };

  const lazyValidator = (compile: () => Validator): Validator => {
    const compiled = onFirstUse(compile);
    const validate = ((data: unknown, context?: unknown) => {
      const fn = compiled() as (data: unknown, context?: unknown) => unknown;
      const result = fn(data, context);
      validate.errors = (fn as { errors?: unknown }).errors;
      return result;
    }) as ((data: unknown, context?: unknown) => unknown) & { errors?: unknown; schemaEnv?: unknown };
    validate.schemaEnv = true;
    return validate as unknown as Validator;
  };

  const lazySerializer = (compile: () => Serializer): Serializer => {
    const compiled = onFirstUse(compile);
    return ((data: unknown) => (compiled() as (data: unknown) => string)(data)) as Serializer;
  };

  return {
    compilersFactory: {
      // The compilers themselves are made on first use too: Ajv's, made with the server, compiles
      // its meta-schema (about 40 ms of a start on the bench machine).
      buildValidator: (externalSchemas, options) => {
        const compiler = once(() => buildValidator(externalSchemas, options));
        return (route) =>
          route.httpPart === 'headers' && onlyOptionalStrings(route.schema)
            ? acceptsRequestHeaders
            : lazyValidator(() => compiler()(route));
      },
      buildSerializer: (externalSchemas, options) => {
        const compiler = once(() => buildSerializer(externalSchemas, options));
        return (route) => lazySerializer(() => compiler()(route));
      },
    },
    get waiting() {
      return waiting.size;
    },
    compileWaiting(budgetMs, failed) {
      const until = performance.now() + budgetMs;
      for (const ensure of waiting) {
        try {
          ensure();
        } catch (error) {
          waiting.delete(ensure);
          failed(error);
        }
        if (performance.now() >= until) break;
      }
      return waiting.size === 0;
    },
  };
}

/** Annotations: what a schema may say besides its type without changing what it accepts. */
const ANNOTATIONS = new Set(['description', 'title', 'examples', 'example', '$comment', 'deprecated']);

/**
 * Whether `schema` is an object of optional strings and says nothing else (no required names, no
 * rule on other properties, no formats, patterns or lengths): the listing routes' headers, given
 * for the API's documentation.
 */
function onlyOptionalStrings(schema: unknown): boolean {
  if (typeof schema !== 'object' || schema === null) return false;
  const { type, properties, required, ...rest } = schema as Record<string, unknown>;
  if (type !== 'object' || typeof properties !== 'object' || properties === null) return false;
  if (required !== undefined && !(Array.isArray(required) && required.length === 0)) return false;
  if (!Object.keys(rest).every((key) => ANNOTATIONS.has(key))) return false;
  if ('set-cookie' in properties) return false;
  return Object.values(properties).every((property) => {
    if (typeof property !== 'object' || property === null) return false;
    const { type: propertyType, ...annotations } = property as Record<string, unknown>;
    return propertyType === 'string' && Object.keys(annotations).every((key) => ANNOTATIONS.has(key));
  });
}

/**
 * The validator of headers that `onlyOptionalStrings` admits: Node gives every request header as
 * one string (duplicates joined or dropped), set-cookie aside, which is a response header. Such a
 * schema cannot refuse a request, so the route's first request needs no Ajv (whose compiler and
 * first schema cost a start's first API answer about 20 ms on the bench machine).
 */
const acceptsRequestHeaders = Object.assign(() => true, { errors: null }) as unknown as Validator;

/** `make`'s result, made on the first call. */
function once<T>(make: () => T): () => T {
  let made: { readonly value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}

/** A turn's share of the compiling: short, so requests that arrive meanwhile wait at most this long. */
const SLICE_MS = 5;
/**
 * How long after the first render the compiling starts: the apps.json that waited for the render
 * is being sent meanwhile (12 MB, written a socket buffer per turn of the event loop).
 */
const START_AFTER_MS = 1000;

/**
 * Compiles what `compilers` still hold a second after `after` has settled (the first render: it
 * comes first), a slice per turn of the event loop, until none are left (then `done` is called)
 * or `stop` is called.
 */
export function compileWhenIdle(
  compilers: LazySchemaCompilers,
  after: Promise<unknown>,
  failed: (error: unknown) => void,
  { startAfterMs = START_AFTER_MS, done = () => undefined }: { startAfterMs?: number; done?: () => void } = {},
): { stop(): void } {
  let stopped = false;
  let pending: NodeJS.Immediate | undefined;
  let waiting: NodeJS.Timeout | undefined;
  const slice = (): void => {
    pending = undefined;
    if (stopped) return;
    if (compilers.compileWaiting(SLICE_MS, failed)) done();
    else pending = setImmediate(slice);
  };
  void after.finally(() => {
    // Unref'd: a process that is stopping does not wait to compile schemas.
    if (!stopped) waiting = setTimeout(() => (pending = setImmediate(slice)), startAfterMs).unref();
  });
  return {
    stop() {
      stopped = true;
      if (waiting !== undefined) clearTimeout(waiting);
      if (pending !== undefined) clearImmediate(pending);
    },
  };
}

/**
 * Fastify lower-cases the names in a route's header schema only with its own compilers; with
 * these, a name written `If-None-Match` would never match (Node gives header names in lower
 * case). Called for each route as it is added: such a schema stops the start, naming the route.
 */
export function assertLowerCaseHeaderNames(route: {
  readonly method: string | readonly string[];
  readonly url: string;
  readonly schema?: { readonly headers?: unknown };
}): void {
  const properties = (route.schema?.headers as { properties?: Record<string, unknown> } | undefined)?.properties ?? {};
  const named = Object.keys(properties).filter((name) => name !== name.toLowerCase());
  if (named.length > 0)
    throw new Error(
      `${String(route.method)} ${route.url}: header schema names must be in lower case (${named.join(', ')})`,
    );
}
