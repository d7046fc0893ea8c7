import { SECURITY_SCHEMES, declareSecurity } from './http/auth.ts';
import type { FastPathOptions } from './http/listing-fast-path.ts';
import { notModifiedFastPath } from './http/listing-fast-path.ts';
import cookie from '@fastify/cookie';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { IncomingMessage, ServerResponse } from 'node:http';
import Fastify from 'fastify';
import type { FastifyServerOptions } from 'fastify';
import type { Container } from './container.ts';
import { installJsonParser } from './http/body-parsers.ts';
import { installCors } from './http/cors.ts';
import { SESSION_COOKIE } from './http/cookies.ts';
import { installErrorHandling } from './http/error-handler.ts';
import { errorPageContext } from './http/page-context.ts';
import { guardPosts } from './http/web-visitor.ts';
import { serializeRequest } from './http/log-redaction.ts';
import { logRefusal } from './http/refusal-log.ts';
import { createNodeServer } from './http/node-server.ts';
import { answerClientError, answerFrameworkError } from './http/protocol-errors.ts';
import type { RefusalLog } from './http/protocol-errors.ts';
import { requestIdFor } from './http/request-id.ts';
import { closeWithConnection } from './http/stream-bodies.ts';
import { trackRoutes } from './http/route-registry.ts';
import { TokenResponse } from './http/routes/accounts/accounts.schemas.ts';
import { sessionRoutes } from './http/routes/accounts/session.routes.ts';
import { tokenRoutes } from './http/routes/accounts/token.routes.ts';
import { scopedTokenRoutes } from './http/routes/accounts/scoped-token.routes.ts';
import { trustedPublishingRoutes } from './http/routes/accounts/trusted-publishing.routes.ts';
import { upgradePlanRoutes } from './http/routes/apps/upgrade-plan.routes.ts';
import { upgradePlannerRoutes } from './http/routes/web/upgrade-planner.routes.ts';
import { appRoutes } from './http/routes/apps/apps.routes.ts';
import {
  AppSchema,
  CategorySchema,
  DiscoverEntrySchema,
  PlatformReleaseSchema,
  RatingSchema,
  ReleaseSchema,
} from './domain/listings/listing-schemas.ts';
import { listingRoutes } from './http/routes/listings/listings.routes.ts';
import { archiveRoutes } from './http/routes/archives/archives.routes.ts';
import { ratingRoutes } from './http/routes/ratings/ratings.routes.ts';
import { releaseRoutes } from './http/routes/releases/releases.routes.ts';
import { feedRoutes } from './http/routes/web/feeds.routes.ts';
import { systemRoutes } from './http/routes/system/system.routes.ts';
import { accountPageRoutes } from './http/routes/web/account-pages.routes.ts';
import { developerPageRoutes } from './http/routes/web/developer-pages.routes.ts';
import { adminPageRoutes } from './http/routes/web/admin-pages.routes.ts';
import { apiPageRoutes } from './http/routes/web/api-page.routes.ts';
import { externalLoginRoutes } from './http/routes/web/external-login.routes.ts';
import { appPageRoutes } from './http/routes/web/app-page.routes.ts';
import { pageRoutes } from './http/routes/web/pages.routes.ts';
import { ErrorBodySchema } from './http/schemas.ts';
import type { AppServer } from './http/types.ts';
import type { LazySchemaCompilers } from './http/lazy-schema-compilers.ts';
import { assertLowerCaseHeaderNames, lazySchemaCompilers } from './http/lazy-schema-compilers.ts';

export interface ServerOptions {
  /** Pino logger options, or false for none (tests). Defaults to JSON logs at the configured level. */
  readonly logger?: FastifyServerOptions['logger'];
  /** The routes' schema compilers (compiled on first use); server.ts compiles the rest once the store is idle. */
  readonly schemaCompilers?: LazySchemaCompilers;
}

/** Longer than any app id or version: a long parameter reaches its schema, which names it in a 400. */
const MAX_PARAM_LENGTH = 4096;

/** How long a GET waits on PostgreSQL for the committed version before it is answered from memory. */
const VERSION_WAIT_MS = 250;

/** Builds the HTTP server around a container, without listening: what server.ts and the tests use. */
export async function buildServer(container: Container, options: ServerOptions = {}): Promise<AppServer> {
  // Refusals made outside fastify's request cycle are logged like the others ("request refused").
  let logRefused: RefusalLog = () => undefined;
  // Conditional requests for unchanged listings are answered before routing (listing-fast-path.ts).
  let logNotModified: FastPathOptions['log'] = () => undefined;
  const fastPath = notModifiedFastPath(container.listings, {
    logRate: container.config.notModifiedLogRate,
    log: (entry) => logNotModified(entry),
    keepAliveTimeoutMs: container.config.connections.idleTimeoutMs,
  });
  // PostgreSQL: another process's commit arrives as a notification, which may come after a request
  // made after the commit. A GET or HEAD is handled once the version has been read by a query that
  // started after the request arrived (shared by the requests of the moment: one query for many),
  // or after VERSION_WAIT_MS when the database is slow or down (then from memory, as before).
  // SQLite asks its probe connection instead.
  const readFirst = container.database.listen !== null;
  const afterCommittedVersion = (request: IncomingMessage, response: ServerResponse): void => {
    let served = false;
    const go = (): void => {
      if (served) return;
      served = true;
      clearTimeout(timer);
      serve(request, response);
    };
    const timer = setTimeout(go, VERSION_WAIT_MS);
    container.versions.committedNow().then(go, go);
  };
  let route: (request: IncomingMessage, response: ServerResponse) => void = () => undefined;
  const serve = (request: IncomingMessage, response: ServerResponse): void => {
    if (!fastPath.answer(request, response)) return route(request, response);
    container.metrics.notModified(request.method ?? 'GET', request.url ?? '');
  };
  const app = Fastify({
    logger: options.logger ?? {
      level: container.config.logLevel,
      redact: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'],
      // Sign-in callbacks and the Connect link carry a code, a state or a form token in their query.
      serializers: { req: serializeRequest },
    },
    trustProxy: container.config.trustProxy,
    // A caller's X-Request-Id is kept when it is sane, so logs can be joined across proxies.
    genReqId: (request) => requestIdFor(request.headers),
    serverFactory: (handler) => {
      route = handler;
      return createNodeServer(
        (request, response) => {
          if (readFirst && (request.method === 'GET' || request.method === 'HEAD'))
            afterCommittedVersion(request, response);
          else serve(request, response);
        },
        container.config,
        (refusal) => logRefused(refusal),
      );
    },
    clientErrorHandler: (error, socket) => answerClientError(error, socket, logRefused),
    frameworkErrors: answerFrameworkError,
    routerOptions: {
      maxParamLength: MAX_PARAM_LENGTH,
      // A trailing slash in a server's `appstoreurl` makes `/api/v1//apps.json`.
      ignoreDuplicateSlashes: true,
      ignoreTrailingSlash: true,
    },
    bodyLimit: 1024 * 1024,
    // verbose: a failed pattern is explained by its schema's description, not shown as a regex.
    // validateSchema: the schemas are the store's own, each compiled by the tests (strict mode
    // still refuses an unknown keyword); checking them against JSON Schema's meta-schema first
    // compiled that meta-schema on the first request after every start (40 ms; issue 55).
    ajv: {
      customOptions: {
        removeAdditional: false,
        coerceTypes: false,
        allErrors: true,
        verbose: true,
        validateSchema: false,
      },
    },
    schemaController: { compilersFactory: (options.schemaCompilers ?? lazySchemaCompilers()).compilersFactory },
    forceCloseConnections: 'idle',
    return503OnClosing: true,
  }).withTypeProvider<TypeBoxTypeProvider>();
  logRefused = ({ requestId, code, status, detail }) => logRefusal(app.log, { reqId: requestId, code, status, detail });
  logNotModified = ({ reqId, url, statusCode, sampled }) =>
    app.log.info(
      { reqId, req: { method: 'GET', url }, res: { statusCode }, sampled },
      'listing not modified (sampled)',
    );

  installJsonParser(app);
  trackRoutes(app);
  app.addHook('onRoute', (route) => declareSecurity(route as Parameters<typeof declareSecurity>[0]));
  app.addHook('onRoute', (route) => assertLowerCaseHeaderNames(route));
  for (const schema of [
    ErrorBodySchema,
    CategorySchema,
    PlatformReleaseSchema,
    DiscoverEntrySchema,
    TokenResponse,
    ReleaseSchema,
    AppSchema,
    RatingSchema,
  ])
    app.addSchema(schema);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'App store API',
        version: '1',
        description: 'REST API of the app store, compatible with the Nextcloud App Store API v1.',
      },
      components: { securitySchemes: SECURITY_SCHEMES },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  await app.register(cookie);
  installErrorHandling(app, (request) => errorPageContext(request, container));
  // Requests that use the secret key (writes, tokens, sessions) wait for no restart the operator
  // has to do first: after `appstore secret-key rotate`, this node refuses them until then.
  app.addHook('onRequest', async (request) => {
    const reads = request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS';
    if (
      reads &&
      request.headers.authorization === undefined &&
      !(request.headers.cookie ?? '').includes(`${SESSION_COOKIE}=`)
    )
      return;
    await container.secretKeyWatch.check();
  });
  await installCors(app);
  // Once shutdown begins, responses still in flight close their connection, so a keep-alive
  // client cannot hold the shutdown open until its idle timeout.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
    fastPath.stop();
  });
  // Mails being sent finish before the database can close; none start after.
  app.addHook('onClose', async () => container.mailQueue.stop());
  app.addHook('onResponse', async (request, reply) => {
    // A response whose headers went out before shutdown began kept its connection alive: once
    // it is done, that connection is idle, and is closed (server.close() closed only those idle then).
    if (closing) setImmediate(() => app.server.closeIdleConnections());
    container.metrics.request(
      request.routeOptions.url ?? 'unmatched',
      request.method,
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
  });
  app.addHook('onSend', async (request, reply, payload) => {
    closeWithConnection(request.raw.socket, payload);
    reply.header('x-request-id', request.id);
    reply.header('x-content-type-options', 'nosniff');
    if (closing) reply.header('connection', 'close');
  });

  // Each group of routes in a scope of its own: content-type parsers (forms) stay where they belong.
  for (const routes of [
    systemRoutes,
    listingRoutes,
    archiveRoutes,
    tokenRoutes,
    scopedTokenRoutes,
    trustedPublishingRoutes,
    appRoutes,
    upgradePlanRoutes,
    releaseRoutes,
    ratingRoutes,
    feedRoutes,
  ]) {
    await app.register(async (scope) => routes(scope, container));
  }
  // The website and the session routes: every POST there passes one guard (CSRF, docs/website.md).
  await app.register(async (site) => {
    guardPosts(site, container);
    for (const routes of [
      sessionRoutes,
      pageRoutes,
      appPageRoutes,
      accountPageRoutes,
      externalLoginRoutes,
      apiPageRoutes,
      upgradePlannerRoutes,
      developerPageRoutes,
      adminPageRoutes,
    ]) {
      await site.register(async (scope) => routes(scope, container));
    }
  });
  return app;
}
