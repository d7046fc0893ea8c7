import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './run-cli.ts';

const TLS = path.join(ROOT, 'test', 'fixtures', 'tls');

export const hasNginx = (): boolean => spawnSync('sh', ['-c', 'command -v nginx']).status === 0;

/**
 * deploy/nginx.conf as shipped, with only what a test must change: the addresses it listens on
 * (loopback, free ports), the node it proxies to, the certificate (the tests' own) and the log
 * paths (a directory of the test's).
 */
export function renderNginxSite(options: {
  httpsPort: number;
  httpPort: number;
  upstreamPort: number;
  dir: string;
}): string {
  const site = fs
    .readFileSync(path.join(ROOT, 'deploy', 'nginx.conf'), 'utf8')
    .replaceAll('/etc/letsencrypt/live/apps.example.com/fullchain.pem', path.join(TLS, 'server.crt'))
    .replaceAll('/etc/letsencrypt/live/apps.example.com/privkey.pem', path.join(TLS, 'server.key'))
    .replaceAll('/var/log/nginx/', `${options.dir}/`)
    .replace(/^\s*listen \[::\]:.*$/gm, '')
    .replace(/listen 443 ssl/g, `listen 127.0.0.1:${options.httpsPort} ssl`)
    .replace(/listen 80;/g, `listen 127.0.0.1:${options.httpPort};`)
    .replace('server 127.0.0.1:8000 ', `server 127.0.0.1:${options.upstreamPort} `);
  return site;
}

/** The main configuration around a site file, as Debian's /etc/nginx/nginx.conf includes sites, in a directory of its own. */
export function nginxMainConfig(dir: string, site: string): string {
  fs.writeFileSync(path.join(dir, 'site.conf'), site);
  // Run as root (CI), the workers would be `nobody`, who cannot write the test's directory.
  const user = process.getuid?.() === 0 ? 'user root;\n' : '';
  return `${user}pid ${dir}/nginx.pid;\nerror_log ${dir}/error.log;\nevents {}\nhttp {\n  access_log off;\n  client_body_temp_path ${dir}/body;\n  proxy_temp_path ${dir}/proxy;\n  fastcgi_temp_path ${dir}/fastcgi;\n  uwsgi_temp_path ${dir}/uwsgi;\n  scgi_temp_path ${dir}/scgi;\n  include ${dir}/site.conf;\n}\n`;
}

export interface RunningNginx {
  readonly origin: string;
  readonly dir: string;
  accessLog(): string;
  errorLog(): string;
  stop(): Promise<void>;
}

const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

/** Starts Debian's nginx with deploy/nginx.conf in front of the node on `upstreamPort`. */
export async function startNginx(upstreamPort: number): Promise<RunningNginx> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'appstore-nginx-'));
  const httpsPort = await freePort();
  const httpPort = await freePort();
  const config = path.join(dir, 'nginx.conf');
  fs.writeFileSync(config, nginxMainConfig(dir, renderNginxSite({ httpsPort, httpPort, upstreamPort, dir })));
  const child = spawn('nginx', ['-p', dir, '-c', config, '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  // Ready when it accepts connections on its port.
  for (let attempt = 0; ; attempt++) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(httpsPort, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (open) break;
    if (attempt > 100 || child.exitCode !== null)
      throw new Error(
        `nginx did not start: ${errors}${fs.existsSync(path.join(dir, 'error.log')) ? fs.readFileSync(path.join(dir, 'error.log'), 'utf8') : ''}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    origin: `https://127.0.0.1:${httpsPort}`,
    dir,
    accessLog: () => {
      const file = path.join(dir, 'appstore.access.log');
      return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    },
    errorLog: () =>
      fs.existsSync(path.join(dir, 'error.log')) ? fs.readFileSync(path.join(dir, 'error.log'), 'utf8') : '',
    stop: async () => {
      child.kill('SIGQUIT');
      await exited;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
