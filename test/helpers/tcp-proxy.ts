import net from 'node:net';

export interface TcpProxy {
  readonly port: number;
  /** The outage: every connection through the proxy is cut, new ones are refused. */
  cut(): Promise<void>;
  /** The end of the outage: connections are accepted again, on the same port. */
  resume(): Promise<void>;
  close(): Promise<void>;
}

/** A TCP proxy to host:port that a test can cut and resume: a database outage without stopping the database. */
export async function startTcpProxy(host: string, port: number): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const track = (socket: net.Socket): void => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  };
  const server = net.createServer((client) => {
    const upstream = net.connect(port, host);
    track(client);
    track(upstream);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  const listen = (at: number): Promise<number> =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(at, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port));
    });
  const stop = (): Promise<void> =>
    new Promise((resolve) => {
      for (const socket of sockets) socket.destroy();
      if (server.listening) server.close(() => resolve());
      else resolve();
    });
  const bound = await listen(0);
  return { port: bound, cut: stop, resume: () => listen(bound).then(() => undefined), close: stop };
}
