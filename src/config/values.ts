import fs from 'node:fs';
import path from 'node:path';

/** Value readers shared by the configuration's modules (config.ts, mirror.ts, archives.ts, external-login.ts): each reports its problem and goes on. */

export type Env = Readonly<Record<string, string | undefined>>;

/** A variable's value, trimmed; an empty one counts as unset. */
export function envReader(env: Env): (name: string) => string | undefined {
  return (name) => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
}

/** The absolute path of a file the service can read; null (and a problem) when it cannot, or when unset. */
export function readableFile(name: string, raw: string | undefined, cwd: string, problems: string[]): string | null {
  if (raw === undefined) return null;
  const file = path.resolve(cwd, raw);
  try {
    if (!fs.statSync(file).isFile()) {
      problems.push(`${name}: ${file} is not a regular file`);
      return null;
    }
    fs.accessSync(file, fs.constants.R_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    problems.push(`${name}: ${file} ${code === 'ENOENT' ? 'does not exist' : 'cannot be read'}`);
    return null;
  }
  return file;
}

/** 1/true/yes or 0/false/no, in any case; `fallback` when unset. */
export function parseSwitch(name: string, raw: string | undefined, problems: string[], fallback = false): boolean {
  if (raw === undefined) return fallback;
  const value = raw.toLowerCase();
  if (value === '1' || value === 'true' || value === 'yes') return true;
  if (value === '0' || value === 'false' || value === 'no') return false;
  problems.push(`${name}: '${raw}' is not a switch; use 1 (on) or 0 (off)`);
  return fallback;
}

/** A secret kept in a file (`name` ends in _FILE), on one line; null (and a problem) when it cannot be read. */
export function readSecret(name: string, raw: string, cwd: string, problems: string[]): string | null {
  const file = path.resolve(cwd, raw);
  let secret: string;
  try {
    secret = fs.readFileSync(file, 'utf8').trim();
  } catch (error) {
    problems.push(
      `${name}: ${file} ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist' : 'cannot be read'}`,
    );
    return null;
  }
  if (secret === '' || /[\r\n]/.test(secret)) {
    problems.push(`${name}: ${file} must hold the secret on one line`);
    return null;
  }
  return secret;
}
