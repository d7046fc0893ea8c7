import type { VersionStamp } from '../domain/listings/version-stamp.ts';
import type { DatabaseHandle } from './database.ts';
import { readContentVersion } from './repositories/content-version.repository.ts';
import { onCommittedWrite } from './write-transaction.ts';

/** The PostgreSQL channel the content version's trigger notifies (migration 0003). */
export const CONTENT_VERSION_CHANNEL = 'appstore_content_version';

export interface FeedOptions {
  /** How often to read the version when no notification can arrive: SQLite always, PostgreSQL while the listening connection is down. */
  readonly pollMs: number;
  /** How long to wait before listening again after the listening connection was lost (PostgreSQL). */
  readonly reconnectMs: number;
  /** Told when the listening connection is lost or back (the server's log). */
  readonly report?: (event: 'listening' | 'lost', error?: Error) => void;
}

/**
 * The content version known without a database round trip per request. Writes through this
 * handle advance it as they commit; writes by other processes arrive by LISTEN/NOTIFY on
 * PostgreSQL (a poll while the connection is down) and by a poll on SQLite, within `pollMs`.
 */
export class ContentVersionFeed {
  private stamp: VersionStamp | undefined;
  private starting: Promise<VersionStamp> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private listener: { stop(): Promise<void> } | undefined;
  private closed = false;
  private readonly stopHearingWrites: () => void;

  constructor(
    private readonly handle: DatabaseHandle,
    private readonly options: FeedOptions,
  ) {
    this.stopHearingWrites = onCommittedWrite(handle.db, (stamp) => this.advance(stamp));
  }

  /** The newest version known; undefined before the first read (see ready()). */
  get current(): VersionStamp | undefined {
    return this.stamp;
  }

  /** The newest version known, reading it (and starting to watch) the first time. */
  ready(): Promise<VersionStamp> {
    if (this.stamp !== undefined) return Promise.resolve(this.stamp);
    this.starting ??= this.start().catch((error: unknown) => {
      this.starting = undefined;
      throw error;
    });
    return this.starting;
  }

  /** Reads the version now (after a write this process did not make through its handle). */
  async refresh(): Promise<VersionStamp> {
    const stamp = await readContentVersion(this.handle.db);
    this.advance(stamp);
    return this.stamp ?? stamp;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopHearingWrites();
    clearTimeout(this.timer);
    await this.listener?.stop();
  }

  private advance(stamp: VersionStamp): void {
    const known = this.stamp;
    // A rebuilt database (another instance id) starts over; otherwise versions only move forward.
    if (known === undefined || known.instanceId !== stamp.instanceId || stamp.version > known.version) this.stamp = stamp;
  }

  private async start(): Promise<VersionStamp> {
    if (this.handle.listen !== null) await this.listenOrPoll();
    else this.schedulePoll();
    return this.refresh();
  }

  /** Listens first and reads after, so no write falls between the two. */
  private async listenOrPoll(): Promise<void> {
    if (this.closed || this.handle.listen === null) return;
    try {
      this.listener = await this.handle.listen(
        CONTENT_VERSION_CHANNEL,
        () => void this.refresh().catch(() => undefined),
        (error) => {
          this.listener = undefined;
          this.options.report?.('lost', error);
          this.schedulePoll();
          this.scheduleReconnect();
        },
      );
      this.options.report?.('listening');
      clearTimeout(this.timer);
      this.timer = undefined;
    } catch (error) {
      this.options.report?.('lost', error as Error);
      this.schedulePoll();
      this.scheduleReconnect();
    }
  }

  private schedulePoll(): void {
    if (this.closed || this.listener !== undefined) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      void this.refresh()
        .catch(() => undefined)
        .finally(() => this.schedulePoll());
    }, this.options.pollMs).unref();
  }

  private scheduleReconnect(): void {
    if (this.closed) return;
    setTimeout(() => {
      // Listening again, the version is read again: a write may have landed in the gap.
      if (this.listener === undefined) void this.listenOrPoll().then(() => this.refresh()).catch(() => undefined);
    }, this.options.reconnectMs).unref();
  }
}
