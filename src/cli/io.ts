/**
 * Where a command reads and writes: the process's streams and environment for `appstore`, and
 * buffers for the tests, which run commands in-process through `runCli`.
 */
export interface CliIo {
  /** The environment the configuration is read from (only APPSTORE_* variables matter). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The directory relative paths (files, APPSTORE_DATA_DIR) are resolved against. */
  readonly cwd: string;
  /** Writes one line to standard output. */
  out(line: string): void;
  /** Writes text to standard output as it is (a PEM certificate, for example). */
  write(text: string): void;
  /** Writes one line to standard error. */
  err(line: string): void;
  /** All of standard input, as UTF-8. */
  readStdin(): Promise<string>;
  /** The terminal's width, to wrap help at (undefined: not a terminal; 80 is used). */
  readonly columns?: number;
  /**
   * Called when a long-running command has done its start's work (`serve`: the first render made,
   * the routes' schemas compiled): `bin/appstore.js` then keeps the code compiled so far for the
   * next start (scripts/load-bundle.mjs).
   */
  readonly warmed?: () => void;
}

export function processIo(warmed?: () => void): CliIo {
  return {
    ...(warmed === undefined ? {} : { warmed }),
    env: process.env,
    cwd: process.cwd(),
    out: (line) => process.stdout.write(`${line}\n`),
    write: (text) => process.stdout.write(text),
    err: (line) => process.stderr.write(`${line}\n`),
    ...(process.stdout.columns === undefined ? {} : { columns: process.stdout.columns }),
    async readStdin() {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
  };
}
