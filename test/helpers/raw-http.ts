import net from 'node:net';

export interface RawExchange {
  /** Everything the server sent before it closed the connection (or the wait ended). */
  readonly text: string;
  readonly status: number | null;
  readonly headers: Record<string, string>;
  readonly body: string;
  /** True when the server closed the connection; false when the wait ended first. */
  readonly closed: boolean;
  /** Milliseconds from connecting to the close (or to the end of the wait). */
  readonly elapsedMs: number;
  /** How many of the parts were written before the connection closed (or the wait ended). */
  readonly sent: number;
}

function parse(text: string, closed: boolean, elapsedMs: number, sent: number): RawExchange {
  const [head = '', ...rest] = text.split('\r\n\r\n');
  const [statusLine = '', ...headerLines] = head.split('\r\n');
  const status = /^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1];
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return {
    text,
    status: status === undefined ? null : Number(status),
    headers,
    body: rest.join('\r\n\r\n'),
    closed,
    elapsedMs,
    sent,
  };
}

/**
 * Opens a TCP connection, writes each part (waiting `pauseMs` between parts; with `halfClose`,
 * then ends its side), and collects what the server answers until it closes the connection or
 * `waitMs` pass.
 */
export function rawExchange(
  port: number,
  parts: readonly (string | Buffer)[],
  options: { waitMs?: number; pauseMs?: number; halfClose?: boolean } = {},
): Promise<RawExchange> {
  const waitMs = options.waitMs ?? 3000;
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let done = false;
    let sent = 0;
    const finish = (closed: boolean): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(parse(Buffer.concat(chunks).toString('utf8'), closed, Date.now() - started, sent));
    };
    const timer = setTimeout(() => finish(false), waitMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', () => finish(true));
    socket.on('error', () => finish(true));
    socket.on('connect', () => {
      void (async () => {
        for (const [index, part] of parts.entries()) {
          if (index > 0 && options.pauseMs !== undefined) await new Promise((r) => setTimeout(r, options.pauseMs));
          if (socket.destroyed || done) return;
          socket.write(part);
          sent += 1;
        }
        // Half-closes: the client has sent everything and waits for the answer.
        if (options.halfClose === true && !socket.destroyed) socket.end();
      })();
    });
  });
}

/** Opens a connection and keeps it open until closed by either side. */
export function openConnection(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}
