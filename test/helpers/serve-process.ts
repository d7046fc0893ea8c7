import { spawn } from 'node:child_process';
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

/** A port nobody listens on now: for a store whose address must be known before it starts. */
export async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
