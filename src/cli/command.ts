import type { ParseArgsConfig } from 'node:util';
import type { CliIo } from './io.ts';

export type CommandOptions = NonNullable<ParseArgsConfig['options']>;

/** What `parseArgs` made of a command's arguments. */
export interface CommandInput {
  readonly values: Readonly<Record<string, string | boolean | undefined>>;
  /** Exactly the positionals the command names, in order. */
  readonly positionals: readonly string[];
}

/** One CLI command: a thin adapter from arguments to a service; returns the exit status. */
export interface Command {
  /** Words that select it, e.g. ['category', 'import']. */
  readonly path: readonly string[];
  readonly usage: string;
  readonly summary: string;
  readonly help: string;
  /** The flags it takes, as `node:util` parseArgs reads them; any other is refused. */
  readonly options?: CommandOptions;
  /** Names of its positional arguments (`FILE`); exactly these many are required. */
  readonly positionals?: readonly string[];
  run(input: CommandInput, io: CliIo): Promise<number>;
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

/** A usage mistake: exit status 2, with the command's usage line. */
export function usageError(message: string, usage: string): CliError {
  return new CliError(`${message}; usage: ${usage}`, 2);
}
