import { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

/**
 * A body made of many buffers (a listing's parts), sent without joining them. Piped into an HTTP
 * response, every buffer is queued at once while the response is corked and goes out in a few
 * vectored writes, as fast as one buffer; piped the usual way, each buffer would wait for the
 * last to drain, a write per part. Ignoring backpressure costs nothing here: the buffers exist
 * already, and the socket holds references, not copies. Read any other way, it is an ordinary
 * stream of the buffers.
 */
export class ChunkStream extends Readable {
  constructor(private readonly chunks: readonly Buffer[]) {
    super();
  }

  override _read(): void {
    for (const chunk of this.chunks) this.push(chunk);
    this.push(null);
  }

  override pipe<T extends NodeJS.WritableStream>(destination: T, options?: { end?: boolean }): T {
    if (!(destination instanceof ServerResponse)) return super.pipe(destination, options);
    destination.cork();
    for (const chunk of this.chunks) destination.write(chunk);
    if (options?.end !== false) destination.end();
    else process.nextTick(() => destination.uncork());
    // Consumed: this stream ends, so whoever waits for its end (fastify) sees it.
    this.push(null);
    this.resume();
    return destination;
  }
}
