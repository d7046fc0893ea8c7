import { spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import type { ChildProcess } from 'node:child_process';
import { placeFixtureAuthority } from './fixture-authority.ts';
import { BIN, ROOT, childEnvironment } from './run-cli.ts';

export interface ServeProcess {
  readonly url: string;
  readonly child: ChildProcess;
  output(): string;
  /** SIGTERM, then the exit status. */
  stop(): Promise<number | null>;
}

/**
 * Starts `appstore serve` on a free port (unless APPSTORE_PORT is given) with only the given APPSTORE_ variables; `command` runs
 * it another way (a shell line, npm start) from the project's root. Without APPSTORE_CA_CERT the
 * store imports the fixture authority on first start, unless `authority: 'generate'` (the tests
 * of that generation).
 */
export async function startServeProcess(
  env: Record<string, string>,
  command: readonly string[] = [process.execPath, BIN, 'serve'],
  options: { readonly authority?: 'fixture' | 'generate' } = {},
): Promise<ServeProcess> {
  const dataDir = env['APPSTORE_DATA_DIR'];
  if (options.authority !== 'generate' && dataDir !== undefined && env['APPSTORE_CA_CERT'] === undefined)
    placeFixtureAuthority(dataDir);
  const [file = '', ...args] = command;
  const child = spawn(file, args, {
    cwd: ROOT,
    env: childEnvironment({ APPSTORE_PORT: '0', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match?.[1] !== undefined) resolve(match[1]);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', () => reject(new Error(`appstore serve exited early:\n${output}`)));
  });
  return {
    url,
    child,
    output: () => output,
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/** The lowest port the system gives its outgoing connections (Linux's default when unreadable). */
function firstEphemeralPort(): number {
  try {
    const low = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > 2000) return low;
  } catch {
    // not Linux: its default below
  }
  return 32768;
}

/** Whether a server can listen on `port` now. */
async function canListen(port: number): Promise<boolean> {
  const probe = net.createServer();
  const listening = await new Promise<boolean>((resolve) => {
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => resolve(true));
  });
  if (listening) await new Promise((resolve) => probe.close(resolve));
  return listening;
}

/**
 * A port nobody listens on now, for a server whose address must be known before it starts. Taken
 * below the range the system gives outgoing connections: a port the kernel had handed out as
 * free was once taken by an outgoing connection in the seconds before the README walkthrough's
 * file server bound it ("Address already in use").
 */
export async function freePort(): Promise<number> {
  const low = firstEphemeralPort();
  const first = Math.min(10000, low - 1000);
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = first + randomInt(low - first);
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port between ${first} and ${low - 1}`);
}
