/** One CLI command: a thin adapter from arguments to a service; returns the exit status. */
export interface Command {
  /** Words that select it, e.g. ['category', 'import']. */
  readonly path: readonly string[];
  readonly usage: string;
  readonly summary: string;
  readonly help: string;
  run(args: readonly string[]): Promise<number>;
}

/** A refusal the user can act on: printed as one line, exit status 1 (2 for usage mistakes). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = 1,
    readonly details: readonly string[] = [],
  ) {
    super(message);
    this.name = 'CliError';
  }
}
