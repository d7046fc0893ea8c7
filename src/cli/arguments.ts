import fs from 'node:fs';
import { CliError } from './command.ts';

export function expectNoArguments(args: readonly string[], usage: string): void {
  if (args.length > 0) throw new CliError(`unexpected argument '${args[0]}'; usage: ${usage}`, 2);
}

export function expectOneArgument(args: readonly string[], usage: string, name: string): string {
  const [first, ...rest] = args;
  if (first === undefined || first.startsWith('-')) throw new CliError(`missing ${name}; usage: ${usage}`, 2);
  if (rest.length > 0) throw new CliError(`unexpected argument '${rest[0]}'; usage: ${usage}`, 2);
  return first;
}

/** A file's bytes, or a refusal that names the file and says why it cannot be read. */
export function readFileBytes(file: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CliError(`${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : 'cannot be read'}`);
  }
}

/** Reads and parses a JSON file, with messages that say which file and what is wrong. */
export function readJsonFile(file: string): unknown {
  const text = readFileBytes(file).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new CliError(`${file} is not valid JSON: ${(error as Error).message}`);
  }
}
