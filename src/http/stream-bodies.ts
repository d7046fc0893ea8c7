import type { Socket } from 'node:net';

interface Destroyable {
  destroyed: boolean;
  destroy(): unknown;
  once(event: 'close', listener: () => void): unknown;
}

/** The stream bodies (open archive files, screenshots) each connection has not finished sending. */
const open = new WeakMap<Socket, Set<Destroyable>>();

const isStream = (payload: unknown): payload is Destroyable & { pipe: unknown } =>
  typeof payload === 'object' &&
  payload !== null &&
  typeof (payload as { pipe?: unknown }).pipe === 'function' &&
  typeof (payload as { destroy?: unknown }).destroy === 'function';

/**
 * A stream body is closed when its connection closes, even if its response never began.
 *
 * Node answers pipelined requests on one connection in turn: the responses after the first wait
 * in a queue and are attached to the socket only when the one before them ends. A client that
 * sends several GETs and hangs up early leaves those queued responses with no 'close' of their
 * own, so Fastify never destroys their bodies, and each would hold its archive file (and its
 * buffers) open for as long as the process runs. One listener per connection.
 */
export function closeWithConnection(socket: Socket | null | undefined, payload: unknown): void {
  if (!isStream(payload) || socket === null || socket === undefined) return;
  if (socket.destroyed) {
    payload.destroy();
    return;
  }
  const bodies = open.get(socket) ?? watch(socket);
  bodies.add(payload);
  payload.once('close', () => bodies.delete(payload));
}

/** The connection's set of bodies, each destroyed when it closes. */
function watch(socket: Socket): Set<Destroyable> {
  const bodies = new Set<Destroyable>();
  open.set(socket, bodies);
  socket.once('close', () => {
    open.delete(socket);
    for (const body of bodies) if (!body.destroyed) body.destroy();
  });
  return bodies;
}
