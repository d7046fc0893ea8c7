import fs from 'node:fs';
import { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

/** The size of each of a piped body's two buffers. */
export const FILE_BODY_CHUNK_BYTES = 256 * 1024;

/**
 * Buffers a finished pump gave back, for the next (at most 16: 4 MiB). A buffer is given back
 * only once every write of it is done; one whose write never came back (a connection lost)
 * is left to the garbage collector.
 */
const spare: Buffer[] = [];
const SPARE_MAX = 16;
const takeBuffer = (): Buffer => spare.pop() ?? Buffer.allocUnsafeSlow(FILE_BODY_CHUNK_BYTES);
const giveBack = (buffers: Buffer[]): void => {
  for (const buffer of buffers) if (spare.length < SPARE_MAX) spare.push(buffer);
};

/**
 * A kept archive's bytes from `start` to `end` inclusive, as a stream. Read as any stream is
 * (`for await`, `on('data')`, piped into anything but a response), each chunk is a new buffer,
 * as in `fs.createReadStream`. Piped into an HTTP response (as Fastify sends a stream body), it
 * reads into two buffers of its own, used in turn, and writes each with a callback: a buffer is
 * read into again only once the response has handed it to the kernel. The buffers then go to
 * the next download.
 *
 * Why (issue 55): a new buffer per chunk is memory outside V8's heap, and V8 answers every
 * 64 MiB or so of it with a full collection of the whole heap. A store holding its listings
 * (a heap of 100 MiB and more) that sends 20 MiB archives under load collected about a dozen
 * times a second, which cut its throughput to about a quarter of nginx's. Two buffers per
 * download, used again by the next, make none.
 */
export class FileBody extends Readable {
  private fd: number | null = null;
  private position: number;
  private readonly end: number;
  private piped = false;
  /** A read under way: the file is closed once it is back (its number could be another file's by then). */
  private reading = false;
  private afterRead: (() => void) | null = null;
  private whenOpen: (() => void) | null = null;

  constructor(
    private readonly file: string,
    range?: { readonly start: number; readonly end: number },
  ) {
    super({ highWaterMark: FILE_BODY_CHUNK_BYTES });
    this.position = range?.start ?? 0;
    this.end = range?.end ?? Number.POSITIVE_INFINITY;
  }

  override _construct(callback: (error?: Error | null) => void): void {
    fs.open(this.file, 'r', (error, fd) => {
      if (error !== null) return callback(error);
      this.fd = fd;
      callback();
      this.whenOpen?.();
    });
  }

  /** Reads up to `wanted` bytes at the position into `buffer`; 0 at the end of the range or file. */
  private readInto(buffer: Buffer, done: (error: Error | null, bytesRead: number) => void): void {
    const fd = this.fd;
    const wanted = Math.min(buffer.length, this.end - this.position + 1);
    if (fd === null || wanted <= 0) return done(null, 0);
    this.reading = true;
    fs.read(fd, buffer, 0, wanted, this.position, (error, bytesRead) => {
      this.reading = false;
      if (this.afterRead !== null) return this.afterRead();
      if (error === null) this.position += bytesRead;
      done(error, bytesRead);
    });
  }

  /** Read as a stream: a new buffer per chunk. */
  override _read(size: number): void {
    const buffer = Buffer.allocUnsafeSlow(Math.max(1, Math.min(size, this.end - this.position + 1)));
    this.readInto(buffer, (error, bytesRead) => {
      if (error !== null) this.destroy(error);
      else this.push(bytesRead === 0 ? null : bytesRead === buffer.length ? buffer : buffer.subarray(0, bytesRead));
    });
  }

  /**
   * Piped (once, before anything was read): the pump below. `pipe` may come before the file is
   * open (Fastify pipes at once); the pump then starts when it is.
   */
  override pipe<T extends NodeJS.WritableStream>(destination: T, options?: { end?: boolean }): T {
    // Only a response: its write callback means the bytes reached the socket (the kernel has
    // them). Another stream may call back while it still holds the chunk (a Transform that
    // passes it on, as the mirror export's check does), so it gets new buffers.
    if (
      !(destination instanceof ServerResponse) ||
      this.piped ||
      this.readableFlowing !== null ||
      this.readableLength > 0
    )
      return super.pipe(destination, options);
    this.piped = true;
    const start = (): void => this.pump(destination, options?.end !== false);
    if (this.fd !== null) start();
    else this.whenOpen = start;
    return destination;
  }

  private pump(destination: NodeJS.WritableStream, endDestination: boolean): void {
    const free = [takeBuffer(), takeBuffer()];
    let writing = 0;
    let atEnd = false;
    let done = false;
    const finish = (): void => {
      if (done || writing > 0 || this.reading) return;
      done = true;
      giveBack(free.splice(0));
      if (endDestination) destination.end();
      // The source ends as a stream does, for those that wait for it (Fastify's end-of-stream watch).
      this.push(null);
      this.resume();
    };
    const next = (): void => {
      if (this.destroyed || atEnd || this.reading) return;
      const buffer = free.pop();
      if (buffer === undefined) return;
      this.readInto(buffer, (error, bytesRead) => {
        if (this.destroyed) return;
        if (error !== null) return void this.destroy(error);
        if (bytesRead === 0) {
          free.push(buffer);
          atEnd = true;
          return finish();
        }
        writing += 1;
        destination.write(buffer.subarray(0, bytesRead), (writeError?: Error | null) => {
          writing -= 1;
          if (writeError !== undefined && writeError !== null) return void this.destroy(writeError);
          free.push(buffer);
          if (atEnd) finish();
          else next();
        });
        next();
      });
    };
    next();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    const close = (): void => {
      const fd = this.fd;
      this.fd = null;
      if (fd === null) return callback(error);
      fs.close(fd, (closeError) => callback(error ?? closeError));
    };
    if (this.reading) this.afterRead = close;
    else close();
  }
}
