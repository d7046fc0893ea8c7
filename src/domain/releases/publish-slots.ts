import { said } from '../../i18n/said.ts';
import { AppError } from '../../errors.ts';

/**
 * How many publishes a node runs at once (issue 49). A publish holds its archive in memory (up
 * to APPSTORE_MAX_ARCHIVE_MIB, 20 MiB by default) from the download to the save; 60 started at
 * once by one account took a node from 127 MiB to 1.5 GiB. So each user has at most `perUser`
 * publishes under way (running or waiting) on a node, and a node downloads at most `perNode` at
 * once: the others wait their turn, in the order they came, up to `queued`; beyond, the publish is
 * refused with when to try again. Memory is bounded by `perNode` archives, whatever is asked.
 */
export interface PublishSlotLimits {
  readonly perUser: number;
  readonly perNode: number;
  readonly queued: number;
  /** The size of each slot's download buffer: the largest archive taken (APPSTORE_MAX_ARCHIVE_MIB). */
  readonly bufferBytes: number;
}

export const PUBLISH_SLOT_LIMITS: PublishSlotLimits = {
  perUser: 3,
  perNode: 3,
  queued: 100,
  bufferBytes: 20 * 1024 * 1024,
};

/** A node that published nothing this long lets its download buffers go (to the next collection). */
const IDLE_BUFFERS_MS = 60_000;

/** Seconds a refused publish is told to wait: about one download of a slow archive. */
const RETRY_AFTER_SECONDS = 30;

/**
 * One admitted publish: `turn()` resolves when it may download, `release()` ends it (only the
 * first call counts). `buffer()`, once its turn came, is the buffer to download into: one of the
 * node's, reused from publish to publish, so archives never pile up waiting for the garbage
 * collector (at most `perNode` buffers exist); it is the slot's until it is released.
 */
export interface PublishSlot {
  turn(): Promise<void>;
  buffer(): Buffer;
  release(): void;
}

export class PublishSlots {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly byUser = new Map<number, number>();
  /** Download buffers not in use; `perNode` at most exist. */
  private readonly buffers: Buffer[] = [];
  private idle: NodeJS.Timeout | null = null;

  constructor(private readonly limits: PublishSlotLimits = PUBLISH_SLOT_LIMITS) {}

  /** Publishes under way (running, waiting) on this node. */
  get load(): { readonly running: number; readonly waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  /**
   * Admits a publish of this user, or refuses it (`rate_limited`, with Retry-After) before
   * anything is downloaded. The slot must be released whatever happens to the publish.
   */
  admit(userId: number): PublishSlot {
    const mine = this.byUser.get(userId) ?? 0;
    if (mine >= this.limits.perUser) {
      throw new AppError(
        'rate_limited',
        said`You have ${mine} publishes under way; at most ${this.limits.perUser} run at once per account. Wait for them to finish, then publish again.`,
        undefined,
        RETRY_AFTER_SECONDS,
      );
    }
    if (this.running >= this.limits.perNode && this.waiting.length >= this.limits.queued) {
      throw new AppError(
        'rate_limited',
        said`The store is busy with ${this.running + this.waiting.length} publishes; try again in ${RETRY_AFTER_SECONDS} s.`,
        undefined,
        RETRY_AFTER_SECONDS,
      );
    }
    this.byUser.set(userId, mine + 1);
    // Its place is taken at once (running, or in the queue), so admissions racing each other
    // count against the limits before any of them has started.
    let state: 'waiting' | 'running' | 'released' = 'waiting';
    let held: Buffer | null = null;
    let started: () => void = () => undefined;
    const turn = new Promise<void>((resolve) => {
      started = () => {
        state = 'running';
        resolve();
      };
    });
    if (this.running < this.limits.perNode) {
      this.running += 1;
      started();
    } else this.waiting.push(started);
    return {
      turn: () => turn,
      buffer: () => {
        if (state !== 'running') throw new Error('a publish slot has a buffer only while it runs');
        held ??= this.buffers.pop() ?? Buffer.allocUnsafe(this.limits.bufferBytes);
        return held;
      },
      release: () => {
        if (state === 'released') return;
        if (state === 'waiting') this.waiting.splice(this.waiting.indexOf(started), 1);
        else this.next();
        state = 'released';
        if (held !== null) this.buffers.push(held);
        held = null;
        this.letBuffersGoWhenIdle();
        const left = (this.byUser.get(userId) ?? 1) - 1;
        if (left <= 0) this.byUser.delete(userId);
        else this.byUser.set(userId, left);
      },
    };
  }

  /** Once nothing ran for a while, the buffers are let go: a store that rarely publishes holds none. */
  private letBuffersGoWhenIdle(): void {
    if (this.idle !== null) clearTimeout(this.idle);
    this.idle = null;
    if (this.running > 0 || this.buffers.length === 0) return;
    this.idle = setTimeout(() => {
      this.idle = null;
      if (this.running === 0) this.buffers.length = 0;
    }, IDLE_BUFFERS_MS);
    this.idle.unref();
  }

  /** A running publish ended: the first waiting one runs in its place. */
  private next(): void {
    const first = this.waiting.shift();
    if (first === undefined) this.running -= 1;
    else first();
  }
}
