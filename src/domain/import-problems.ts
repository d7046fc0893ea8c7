import { AppError } from '../errors.ts';
import type { FieldErrors } from '../errors.ts';

/**
 * What the administrators' import files share (categories, platforms, discover entries): every
 * problem is collected, keyed by where it is (`[2].translations.de.name`), and the whole file is
 * refused when there is any, so nothing is imported from a file that is partly wrong.
 */
export type Problems = FieldErrors;

export function add(problems: Problems, where: string, message: string): void {
  (problems[where] ??= []).push(message);
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Refuses the whole file, naming the first problem and how many more there are. */
export function refuse(kind: string, problems: Problems): never {
  const places = Object.entries(problems);
  const first = places[0];
  const summary = first === undefined ? '' : `: ${first[0]}: ${first[1][0]}`;
  const more = places.length > 1 ? ` (and ${places.length - 1} more)` : '';
  throw new AppError('invalid_import', `the ${kind} file was not imported${summary}${more}`, problems);
}

export function checkUnknownKeys(
  entry: Record<string, unknown>,
  allowed: readonly string[],
  where: string,
  problems: Problems,
): void {
  for (const key of Object.keys(entry)) {
    if (!allowed.includes(key)) add(problems, `${where}.${key}`, `unknown field; expected only ${allowed.join(', ')}`);
  }
}
