import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Command, CommandInput } from './command.ts';
import { CliError, usageError } from './command.ts';
import type { CliIo } from './io.ts';

/**
 * Parses a command's arguments with `node:util` parseArgs in strict mode: an unknown or misspelt
 * option (`--nighly`) is refused as such, and the positionals must be exactly the named ones.
 */
export function parseCommandArguments(command: Command, args: readonly string[]): CommandInput {
  let parsed: { values: Record<string, string | boolean | (string | boolean)[] | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({ args: [...args], options: command.options ?? {}, allowPositionals: true, strict: true });
  } catch (error) {
    // parseArgs explains at length how to pass '-' positionals: the first sentence is the point.
    const first = (error as Error).message.split(/\.\s|\n/)[0] ?? 'invalid arguments';
    throw usageError(first.charAt(0).toLowerCase() + first.slice(1), command.usage);
  }
  const names = command.positionals ?? [];
  const { positionals } = parsed;
  if (positionals.length < names.length)
    throw usageError(`missing ${names.slice(positionals.length).join(' and ')}`, command.usage);
  if (positionals.length > names.length)
    throw usageError(`unexpected argument '${positionals[names.length] ?? ''}'`, command.usage);
  const values: Record<string, string | boolean | undefined> = {};
  for (const [name, value] of Object.entries(parsed.values)) values[name] = Array.isArray(value) ? value.at(-1) : value;
  return { values, positionals };
}

/** A string option's value, or undefined when it was not given. */
export function stringOption(input: CommandInput, name: string): string | undefined {
  const value = input.values[name];
  return typeof value === 'string' ? value : undefined;
}

export function flag(input: CommandInput, name: string): boolean {
  return input.values[name] === true;
}

/** The n-th positional (the parser has checked that it is there). */
export function positional(input: CommandInput, index: number): string {
  const value = input.positionals[index];
  if (value === undefined) throw new CliError(`missing argument ${index + 1}`, 2);
  return value;
}

/** A file's bytes, or a refusal that names the file and says why it cannot be read. */
export function readFileBytes(file: string, io: CliIo): Buffer {
  try {
    return fs.readFileSync(path.resolve(io.cwd, file));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CliError(
      `${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : 'cannot be read'}`,
    );
  }
}

/** Reads and parses a JSON file, with messages that say which file and what is wrong. */
export function readJsonFile(file: string, io: CliIo): unknown {
  const text = readFileBytes(file, io).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new CliError(`${file} is not valid JSON: ${(error as Error).message}`);
  }
}
