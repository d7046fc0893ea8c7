import { spawn } from 'node:child_process';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '..', '..');
export const BIN = path.join(ROOT, 'bin', 'appstore.js');

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `appstore ARGS` as a child process, as an operator would, with only the given APPSTORE_ variables. */
export function runAppstore(args: readonly string[], env: Record<string, string>, input?: string): Promise<CliResult> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('APPSTORE_')));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...base, ...env }, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}
