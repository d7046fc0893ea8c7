import fs from 'node:fs';
import type { Acting } from '../domain/audit/audit.ts';
import { processActing } from '../process-acting.ts';
import { loadConfig } from '../config/config.ts';
import type { Config } from '../config/config.ts';
import { createContainer } from '../container.ts';
import type { Container } from '../container.ts';
import { CliError } from './command.ts';
import type { CliIo } from './io.ts';
import { lineLog } from '../store-log.ts';

/** The configuration from the command's environment. */
export function configFor(io: CliIo): Config {
  return loadConfig(io.env, io.cwd);
}

/**
 * Runs a command against the configured database, migrated to the latest schema first (so every
 * command works on a fresh install), and closes it afterwards.
 */
export async function withContainer<T>(
  io: CliIo,
  work: (container: Container) => Promise<T>,
  options: {
    migrate?: boolean;
    mailFileNotice?: (message: string) => void;
    /** The command only reads: a store that does not exist yet is refused, not created. */
    reads?: boolean;
  } = {},
): Promise<T> {
  const config = configFor(io);
  if (options.reads === true) refuseMissingStore(config);
  fs.mkdirSync(config.dataDir, { recursive: true });
  // A command delivers the mails it queues before it exits (a server tries again if it cannot).
  // What the container's parts report (a mail that could not be sent …) goes to the command's errors.
  const container = createContainer(config, {
    mailDelivery: 'own',
    log: lineLog((line) => io.err(line)),
    ...(options.mailFileNotice === undefined ? {} : { mailFileNotice: options.mailFileNotice }),
  });
  try {
    if (options.reads === true && !(await container.storeExists())) throw noStore(config);
    if (options.migrate !== false) {
      const migrated = await container.migrate();
      for (const note of migrated.notes) io.err(`migration ${note}`);
      await container.checkSecretKey();
    }
    const result = await work(container);
    await container.mailQueue.settled();
    return result;
  } finally {
    await container.close();
  }
}

const noStore = (config: Config): CliError =>
  new CliError(
    config.database.kind === 'sqlite'
      ? `no store at ${config.dataDir}: set APPSTORE_DATA_DIR to the store's directory (or APPSTORE_DATABASE_URL to its PostgreSQL database), or run \`appstore migrate\` to create one there`
      : `the database of APPSTORE_DATABASE_URL holds no store: check the URL, or run \`appstore migrate\` to create one there`,
  );

/** A command that only reads does not create a store where there is none (a mistyped APPSTORE_DATA_DIR). */
function refuseMissingStore(config: Config): void {
  if (config.database.kind === 'sqlite' && !fs.existsSync(config.database.file)) throw noStore(config);
}

/** The command line as the audit log names it: the operating-system user (and who ran sudo). */
export function cliActingFor(io: CliIo): Acting {
  return processActing(io.env);
}
