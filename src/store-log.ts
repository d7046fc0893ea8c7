/**
 * Where the container's parts report what an operator should hear of (trust files that changed
 * or could not be used, the change feed, saved listing parts, publish jobs that failed, mail):
 * passed in through the container's options (`ContainerOptions.log`), never patched in later.
 * The server passes one that writes to its log; commands and tests their own.
 */
export interface StoreLog {
  info(message: string, fields?: Readonly<Record<string, unknown>>): void;
  warn(message: string, fields?: Readonly<Record<string, unknown>>): void;
  error(message: string, fields?: Readonly<Record<string, unknown>>): void;
}

/** A line for a person: the message, then the fields as name=value. */
function line(message: string, fields?: Readonly<Record<string, unknown>>): string {
  const shown = Object.entries(fields ?? {}).map(
    ([name, value]) => `${name}=${typeof value === 'string' ? value : JSON.stringify(value)}`,
  );
  return shown.length === 0 ? message : `${message} (${shown.join(', ')})`;
}

/** Warnings and errors as lines given to `write`, information left out: what a command shows. */
export function lineLog(write: (line: string) => void): StoreLog {
  return {
    info: () => undefined,
    warn: (message, fields) => write(line(message, fields)),
    error: (message, fields) => write(line(message, fields)),
  };
}

/** Warnings and errors as lines on standard error. */
export const stderrLog: StoreLog = lineLog((text) => void process.stderr.write(`${text}\n`));

/** Nothing at all (tests that look at what happened rather than at the log). */
export const silentLog: StoreLog = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** The message of an error, for a log's fields. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Pino's way round (fields first), as Fastify's `app.log` takes them. */
export interface PinoLike {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/**
 * A log for a server whose logger exists only once the server is built (after the container):
 * until `attach`, what is reported goes to standard error; after it, to the server's log.
 */
export class ServerLog implements StoreLog {
  private target: PinoLike | null = null;

  attach(target: PinoLike): void {
    this.target = target;
  }

  info(message: string, fields?: Readonly<Record<string, unknown>>): void {
    this.send('info', message, fields);
  }

  warn(message: string, fields?: Readonly<Record<string, unknown>>): void {
    this.send('warn', message, fields);
  }

  error(message: string, fields?: Readonly<Record<string, unknown>>): void {
    this.send('error', message, fields);
  }

  private send(level: keyof StoreLog, message: string, fields?: Readonly<Record<string, unknown>>): void {
    if (this.target === null) stderrLog[level](message, fields);
    else this.target[level](fields ?? {}, message);
  }
}
