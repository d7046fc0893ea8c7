import { spawn } from 'node:child_process';
import path from 'node:path';
import { runCli } from '../../src/cli/main.ts';

export const ROOT = path.resolve(import.meta.dirname, '..', '..');
export const BIN = path.join(ROOT, 'bin', 'appstore.js');

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `appstore ARGS` in this process through `runCli`, with only the given APPSTORE_ variables
 * and `input` as standard input: what the command prints and its exit status, without the second
 * a child process takes to start.
 */
export async function runCommand(args: readonly string[], env: Record<string, string>, input = ''): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    env,
    cwd: ROOT,
    out: (line) => (stdout += `${line}\n`),
    write: (text) => (stdout += text),
    err: (line) => (stderr += `${line}\n`),
    readStdin: async () => input,
  });
  return { code, stdout, stderr };
}

/**
 * The environment of a child `appstore` process: this one's without its APPSTORE_ variables, then
 * the given ones. It runs the bundle users run, never the sources instead (APPSTORE_BUNDLE).
 */
export function childEnvironment(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('APPSTORE_')));
  return { ...base, APPSTORE_BUNDLE: 'required', ...env };
}

/** Runs `appstore ARGS` as a child process, as an operator would (the end-to-end tests), through bin/appstore.js and the bundle. */
export function runAppstore(args: readonly string[], env: Record<string, string>, input?: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: childEnvironment(env), stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}
