import { followPublicUrl } from './domain/archives/keep-archives.ts';
import fs from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { buildServer } from './app.ts';
import type { Config } from './config/config.ts';
import { unknownVariables } from './config/config.ts';
import { callbackUrl } from './domain/accounts/external-login.ts';
import { createContainer } from './container.ts';
import { errorText, ServerLog } from './store-log.ts';
import { publicUrlOf } from './config/config.ts';
import type { Container } from './container.ts';
import { ensureOwnAuthority } from './domain/identity/store-identity.ts';
import { compileWhenIdle, lazySchemaCompilers } from './http/lazy-schema-compilers.ts';
import { startMetricsServer } from './http/metrics-server.ts';
import { startHousekeeping } from './housekeeping.ts';
import { processActing } from './process-acting.ts';
import { watchTrustFiles } from './trust-watch.ts';
import { PASSWORD_COST_RANGE } from './domain/accounts/password-hash.ts';

/** How often a server looks for queued mails it did not queue itself (a command's, a stopped node's, one to try again). */
const MAIL_LOOK_MS = 30_000;

export interface RunningServer {
  readonly app: FastifyInstance;
  readonly container: Container;
  /** The port of `GET /metrics` when it has one of its own (APPSTORE_METRICS_PORT). */
  readonly metricsPort: number | null;
  /** Stops accepting, lets in-flight requests finish, closes the database. Idempotent. */
  stop(): Promise<void>;
}

const SHUTDOWN_GRACE_MS = 10_000;

export interface StartOptions {
  /** Called after the routes are built and before listening (tests add a route here). */
  readonly beforeListen?: (app: FastifyInstance) => void;
  /** The environment the configuration came from, checked for misspelt APPSTORE_ variables. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Called once the start's work is done: the first render made and every route's schemas compiled. */
  readonly warmed?: () => void;
}

/** Downloads counted are written this often, in one batch (docs/operations.md). */
const DOWNLOAD_WRITE_MS = 10_000;

/** How long after the website's index the start's apps.json render waits: for the first pages to be answered. */
const RENDER_AFTER_INDEX_MS = 250;
/**
 * The catalogue's build starts this long after the port opens: the requests that waited for the
 * port (a restart behind a proxy, Nextcloud servers retrying) are answered first, instead of
 * behind its queries. A request that needs the catalogue or apps.json starts it itself. By hand,
 * a first platforms.json right after the port opened took 37 ms instead of 85, and a first
 * apps.json after a restart 167 to 196 ms instead of 249 to 259 (issue 55).
 */
const WARM_AFTER_OPEN_MS = 50;

/** The process's server: config → container → migrations → server → listen (`appstore serve`). */
export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  fs.mkdirSync(config.dataDir, { recursive: true });
  // What the container's parts report goes to the server's log once it exists (standard error before).
  const log = new ServerLog();
  const container = createContainer(config, { log });
  try {
    const migrated = await container.migrate();
    await container.checkSecretKey();
    // A newcomer gets a working authority; an operator may point APPSTORE_CA_CERT elsewhere.
    const authority =
      config.caCertFile === null
        ? await ensureOwnAuthority(
            container.identity,
            container.accounts.keys,
            container.legacyAuthority,
            container.now(),
            processActing(),
          )
        : 'external';
    const schemaCompilers = lazySchemaCompilers();
    const app = await buildServer(container, { schemaCompilers });
    log.attach(app.log);
    if (authority === 'created')
      app.log.info(
        "created the store's certificate authority (in the database; `appstore ca certificate` prints its certificate)",
      );
    if (authority === 'imported')
      app.log.info(
        { from: container.legacyAuthority.certificate },
        "moved the store's certificate authority into the database (its key sealed under the secret key); the files may be removed once backed up",
      );
    for (const note of migrated.notes) app.log.warn(`migration ${note}`);
    const moved = await followPublicUrl(container.keptArchives);
    if (moved > 0)
      app.log.info(
        { releases: moved, publicUrl: publicUrlOf(config) },
        'the public URL changed: the listings now give the kept archives under it',
      );
    await container.trust();
    const unwatch = watchTrustFiles(config, container.trustSource, (message) => app.log.info(message));
    const mailDirectory = container.mailFiles.directory;
    if (mailDirectory !== null) {
      app.log.warn(
        { directory: mailDirectory },
        'no SMTP server configured (APPSTORE_SMTP_URL): mails are written to files in this directory and their links to this log. Fine on one machine; set APPSTORE_SMTP_URL before real users sign up.',
      );
    }
    if (config.publicUrl === null)
      app.log.info(
        { publicUrl: publicUrlOf(config) },
        'links in mails and the URLs of kept archives in the listings use this address; set APPSTORE_PUBLIC_URL to the address visitors and Nextcloud servers use',
      );
    for (const provider of container.externalLogin.providers.values()) {
      const redirectUri = callbackUrl(container.externalLogin, provider.id);
      if (config.publicUrl === null)
        app.log.warn(
          { provider: provider.id, redirectUri },
          'external login without APPSTORE_PUBLIC_URL: the provider sends people back to this address, which must be the one registered there and reachable by browsers',
        );
      else
        app.log.info(
          { provider: provider.id, redirectUri },
          `"Sign in with ${provider.name}": register this redirect URI at the provider`,
        );
    }
    options.beforeListen?.(app);
    for (const name of unknownVariables(options.env))
      app.log.warn({ variable: name }, 'unknown APPSTORE_ variable ignored (a typo?)');
    if (config.passwordCost < PASSWORD_COST_RANGE.advised) {
      app.log.warn(
        { passwordCost: config.passwordCost },
        `APPSTORE_PASSWORD_COST below ${PASSWORD_COST_RANGE.advised}: new password hashes are fast to guess (meant for test suites)`,
      );
    }
    await container.listings.readVersion();
    await app.listen({ host: config.host, port: config.port });
    // Once the port is open, WARM_AFTER_OPEN_MS later, in the background: the website's catalogue
    // and its orders (about 15 ms at 600 apps; the search's words a second later), then, a moment
    // later, apps.json's render (a few hundred ms on one core): the pages that waited for the
    // catalogue go first. A request that needs either meanwhile waits for it (an apps.json asked
    // for before the render starts starts it); a database that cannot be read now leaves it to
    // that request. The catalogue waits for a render already under way (an apps.json asked for as
    // the port opened): background work does not share the core with a request that waits; a
    // page asked for meanwhile reads the catalogue itself.
    const warmed = new Promise((resolve) => setTimeout(resolve, WARM_AFTER_OPEN_MS))
      .then(() => container.listings.rendersSettled())
      .then(() => container.browse.catalog())
      .catch(() => undefined)
      .then(() => new Promise((resolve) => setTimeout(resolve, RENDER_AFTER_INDEX_MS)))
      .then(() => {
        container.listings.warm();
        return container.listings.warmed();
      });
    // The routes' schemas not asked for yet are compiled a second after the first apps.json is
    // made, a few milliseconds at a time, so a schema Fastify cannot compile shows in the log soon
    // after a start.
    const compiling = compileWhenIdle(
      schemaCompilers,
      warmed,
      (error) =>
        app.log.error(
          { error: errorText(error) },
          'a route schema could not be compiled: requests to that route fail until it is fixed',
        ),
      options.warmed === undefined ? {} : { done: options.warmed },
    );
    const metricsServer =
      config.metrics.port === null
        ? null
        : await startMetricsServer(container.metrics, config.host, config.metrics.port);
    if (metricsServer !== null)
      app.log.info({ port: metricsServer.port }, `metrics at http://${config.host}:${metricsServer.port}/metrics`);
    const housekeeping = startHousekeeping(container, (message, error) =>
      error === null ? app.log.info(message) : app.log.warn({ error: errorText(error) }, message),
    );
    container.downloads.counter.start(DOWNLOAD_WRITE_MS);
    // Mails queued by commands that could not send them, or by a node that stopped: every look.
    container.mailQueue.kick();
    const mailLook = setInterval(() => container.mailQueue.kick(), MAIL_LOOK_MS).unref();
    let stopping: Promise<void> | undefined;
    const stop = (): Promise<void> =>
      (stopping ??= (async () => {
        unwatch();
        compiling.stop();
        housekeeping.stop();
        clearInterval(mailLook);
        // Counted downloads are written first: a slow download still being sent must not hold
        // them past a forced exit; those counted while requests finish are written at the close.
        await container.downloads.counter.flush();
        await metricsServer?.close();
        await app.close();
        await container.close();
      })());
    return { app, container, metricsPort: metricsServer?.port ?? null, stop };
  } catch (error) {
    await container.close();
    throw error;
  }
}

/**
 * Starts the server with `start` and resolves once it has shut down after SIGTERM or SIGINT.
 * The signals are caught before `start` runs: one that arrives while the server is still starting
 * (migrations, the first render) stops it as soon as it runs, instead of killing the process
 * halfway. A second signal, or a shutdown longer than the grace period, ends the process at once.
 */
export function serveUntilSignalled(
  start: () => Promise<RunningServer>,
  signals: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT'],
): Promise<void> {
  return new Promise((resolve, reject) => {
    let server: RunningServer | undefined;
    let received: NodeJS.Signals | null = null;
    const release = (): void => {
      for (const s of signals) process.off(s, onSignal);
    };
    const shutDown = (running: RunningServer, signal: NodeJS.Signals): void => {
      running.app.log.info({ signal }, 'shutting down: no new connections, finishing requests in flight');
      const force = setTimeout(() => {
        running.app.log.error('shutdown took longer than the grace period: exiting');
        process.exit(1);
      }, SHUTDOWN_GRACE_MS).unref();
      running
        .stop()
        .then(() => {
          clearTimeout(force);
          release();
          running.app.log.info('shutdown complete');
          resolve();
        })
        .catch(reject);
    };
    function onSignal(signal: NodeJS.Signals): void {
      if (received !== null) {
        server?.app.log.warn({ signal }, 'second signal: exiting without waiting');
        process.exit(1);
      }
      received = signal;
      if (server !== undefined) shutDown(server, signal);
    }
    for (const s of signals) process.on(s, onSignal);
    start().then(
      (running) => {
        server = running;
        if (received !== null) shutDown(running, received);
      },
      (error: unknown) => {
        release();
        reject(error);
      },
    );
  });
}
