import type { VersionStamp } from '../domain/listings/version-stamp.ts';
import type { CommitProbe, DatabaseHandle, Listening } from './database.ts';
import { CONTENT_VERSION_QUERY, contentVersionOfRow } from './content-version-row.ts';
import { readContentVersionOften, renewEpoch } from './repositories/content-version.repository.ts';
import { onCommittedWrite } from './write-transaction.ts';

/** FeedOptions.readEveryMs unless given. */
const READ_EVERY_MS = 1000;

/** The PostgreSQL channel the content version's trigger notifies (migration 0003). */
export const CONTENT_VERSION_CHANNEL = 'appstore_content_version';

export interface FeedOptions {
  /** How often to read the version when nothing else tells of commits: PostgreSQL while the listening connection is down, SQLite in memory (no commit probe). */
  readonly pollMs: number;
  /** How long to wait before listening again after the listening connection was lost (PostgreSQL). */
  readonly reconnectMs: number;
  /**
   * PostgreSQL, listening: a request's check reads the version when the last read began longer
   * ago than this, and is otherwise the listening connection's fence (confirm). The read is what
   * notices a change that sent no notification: a restore by hand (pg_restore alone).
   */
  readonly readEveryMs?: number;
  /** Told when the listening connection is lost or back (the server's log). */
  readonly report?: (event: 'listening' | 'lost', error?: Error) => void;
  /** Told when the database went back to an older version of its epoch (restored by hand): this node gave it a new epoch. */
  readonly restored?: (from: VersionStamp, to: VersionStamp) => void;
}

/**
 * The content version known without a database round trip per request. Writes through this
 * handle advance it as they commit. On SQLite, `current` first asks the commit probe whether any
 * connection committed since (PRAGMA data_version, once per turn of the event loop) and reads the
 * version then. On PostgreSQL, other processes' writes arrive by LISTEN/NOTIFY (a poll while the
 * connection is down), and `committedNow` reads the version for a request that must not precede
 * a notification still on its way (app.ts: every GET and HEAD), one read for many requests.
 */
export class ContentVersionFeed {
  private stamp: VersionStamp | undefined;
  private starting: Promise<VersionStamp> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private listener: Listening | undefined;
  /** The read a notification without a usable version started (notified): a fence waits for it. */
  private readingNotified: Promise<unknown> | null = null;
  private closed = false;
  private readonly stopHearingWrites: () => void;

  constructor(
    private readonly handle: DatabaseHandle,
    private readonly options: FeedOptions,
  ) {
    this.stopHearingWrites = onCommittedWrite(handle.db, (stamp) => this.observe(stamp, ++this.ticks));
  }

  /**
   * The newest version known; undefined before the first read (see ready()). On SQLite the probe
   * is asked once per turn of the event loop: the requests read in one turn (many, under load)
   * share one check, and a commit is seen by every request that arrives after the turn it was
   * made in.
   */
  get current(): VersionStamp | undefined {
    const probe = this.handle.commitProbe;
    if (probe !== null && !this.probedThisTurn) {
      this.probedThisTurn = true;
      setImmediate(this.nextTurn);
      this.probes += 1;
      this.probeCommits(probe);
    }
    return this.stamp;
  }

  /** How many times the commit probe was asked (SQLite): the metrics, and the bench's cost per 304. */
  probes = 0;
  private probedThisTurn = false;
  private readonly nextTurn = (): void => {
    this.probedThisTurn = false;
  };
  private seenDataVersion: number | undefined;

  /** SQLite: reads the committed version when some connection committed since the last look. */
  private probeCommits(probe: CommitProbe): void {
    let dataVersion: number;
    try {
      dataVersion = probe.dataVersion();
    } catch {
      return; // the database is closed or failing: the version known stays, the requests that need the database say so
    }
    if (dataVersion === this.seenDataVersion) return;
    let row: Record<string, unknown> | undefined;
    try {
      row = probe.readRow(CONTENT_VERSION_QUERY);
    } catch {
      return; // not migrated yet: looked at again next time
    }
    this.seenDataVersion = dataVersion;
    if (row !== undefined) this.observe(contentVersionOfRow(row), ++this.ticks);
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

  /** The read not sent yet, which every caller until then shares; and whether one is under way. */
  private queued: { promise: Promise<VersionStamp>; settle: (read: Promise<VersionStamp>) => void } | null = null;
  private sending = false;

  /**
   * PostgreSQL: the version as committed now, known by a check sent after this call; callers
   * until it is sent share it. It is sent at the end of the event loop's turn (once every request
   * read from the sockets in this turn has joined it: they all arrived before it is sent), or,
   * while another check is under way, at the end of the turn that one comes back in. So under
   * load one check serves every request of a turn and the next, and a request waits for at most
   * two. A notification may reach this node after a request that follows the commit: the check
   * cannot. While the listening connection is up, the check is its fence (an empty query, after
   * which every notification of a commit made before it has arrived), with a read of the version
   * at least once a second (FeedOptions.readEveryMs); otherwise a read of the version.
   */
  committedNow(): Promise<VersionStamp> {
    if (this.queued === null) {
      let settle!: (read: Promise<VersionStamp>) => void;
      const promise = new Promise<VersionStamp>((resolve) => (settle = resolve));
      this.queued = { promise, settle };
      if (!this.sending) setImmediate(this.sendQueued);
    }
    return this.queued.promise;
  }

  private readonly sendQueued = (): void => {
    const queued = this.queued;
    if (queued === null || this.sending) return;
    this.queued = null;
    this.sending = true;
    const read = this.confirm();
    queued.settle(read);
    void read
      .catch(() => undefined)
      .then(() => {
        this.sending = false;
        if (this.queued !== null) setImmediate(this.sendQueued);
      });
  };

  /**
   * The version once every commit made before this call is known: through the listening
   * connection's fence (issue 55: an empty query costs the server and this process about half of
   * a read of the version), or by reading it when the last read began a second ago or more, when
   * there is no listening connection, or when the fence fails. A commit that notifies nobody (a
   * restore by hand) is seen by the next read, within that second.
   */
  private async confirm(): Promise<VersionStamp> {
    const listener = this.listener;
    const readEveryMs = this.options.readEveryMs ?? READ_EVERY_MS;
    if (listener !== undefined && this.stamp !== undefined && performance.now() - this.lastReadAt < readEveryMs) {
      try {
        await listener.fence();
        if (this.readingNotified !== null) await this.readingNotified;
        if (this.renewing !== null) await this.renewing;
        return this.stamp;
      } catch {
        // The listening connection failed (its loss is reported apart): read the version instead.
      }
    }
    return this.refresh();
  }

  /** Reads the version now (after a write this process did not make through its handle). */
  async refresh(): Promise<VersionStamp> {
    const stamp = await this.read();
    // A restore seen (by this read or one beside it): the caller waits for the new epoch, or the
    // caches, whose newer entries of the old epoch still "reach" the restored version, would
    // answer it with content from before the restore.
    if (this.renewing !== null) await this.renewing;
    return this.stamp ?? stamp;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopHearingWrites();
    clearTimeout(this.timer);
    await this.listener?.stop();
  }

  /** Observations so far (reads started, commits seen): orders what they tell. */
  private ticks = 0;
  /** The observation the version known came from. */
  private knownAt = 0;

  /**
   * What a read (started at `ticket`) or a commit of this process found. A newer version of the
   * same epoch is always taken. Anything else (another epoch, an older version) is taken only
   * from an observation that began after the one the version known came from: a slow read that
   * started before a commit must not move the version back. An older version of the same epoch,
   * seen that way, means the database was restored by hand (pg_restore, a file copied back):
   * version numbers would now count again over ETags already given out, so this node gives the
   * database a new epoch first (docs/operations.md, "Backups and restore").
   */
  private observe(stamp: VersionStamp, ticket: number): void {
    const known = this.stamp;
    if (known === undefined || (stamp.instanceId === known.instanceId && stamp.version > known.version)) {
      this.stamp = stamp;
      this.knownAt = Math.max(this.knownAt, ticket);
      return;
    }
    if (ticket <= this.knownAt || (stamp.instanceId === known.instanceId && stamp.version === known.version)) return;
    this.stamp = stamp;
    this.knownAt = ticket;
    if (stamp.instanceId === known.instanceId && this.renewing === null) {
      const renewing = this.renew(known, stamp).finally(() => {
        if (this.renewing === renewing) this.renewing = null;
      });
      this.renewing = renewing;
    }
  }

  /** When the last read of the version began (performance.now()). */
  private lastReadAt = Number.NEGATIVE_INFINITY;

  /** Reads the version and takes what it tells. */
  private async read(): Promise<VersionStamp> {
    const ticket = ++this.ticks;
    this.lastReadAt = performance.now();
    const stamp = await readContentVersionOften(this.handle);
    this.observe(stamp, ticket);
    return stamp;
  }

  /** The new epoch being given after a restore was seen; null otherwise. */
  private renewing: Promise<void> | null = null;

  private async renew(before: VersionStamp, found: VersionStamp): Promise<void> {
    try {
      await renewEpoch(this.handle.db, found);
      // Not `refresh`, which waits for this renewal.
      await this.read();
      this.options.restored?.(before, this.stamp ?? found);
    } catch {
      // Read again at the next request or notification; another node may renew it meanwhile.
    }
  }

  private async start(): Promise<VersionStamp> {
    if (this.handle.listen !== null) await this.listenOrPoll();
    // SQLite: the probe sees every commit when asked; a poll only where there is none (in memory).
    else if (this.handle.commitProbe === null) this.schedulePoll();
    return this.refresh();
  }

  /** Listens first and reads after, so no write falls between the two. */
  private async listenOrPoll(): Promise<void> {
    if (this.closed || this.handle.listen === null) return;
    try {
      this.listener = await this.handle.listen(
        CONTENT_VERSION_CHANNEL,
        (payload) => this.notified(payload),
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

  /**
   * A notification names the version committed (migration 0008: instance id, number, time): it
   * is taken at once. One of another database (another schema sharing the server, or a restore)
   * or of an older layout is read back instead.
   */
  private notified(payload: string): void {
    const [instanceId = '', version = '', changedAt = ''] = payload.split(' ');
    const known = this.stamp;
    const stamp = contentVersionOfRow({ version, changed_at: changedAt, instance_id: instanceId });
    if (
      known !== undefined &&
      instanceId === known.instanceId &&
      /^\d+$/.test(version) &&
      stamp.version > known.version &&
      !Number.isNaN(stamp.changedAt.getTime())
    )
      this.observe(stamp, this.knownAt);
    else {
      const reading: Promise<unknown> = this.refresh()
        .catch(() => undefined)
        .finally(() => {
          if (this.readingNotified === reading) this.readingNotified = null;
        });
      this.readingNotified = reading;
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
      if (this.listener === undefined)
        void this.listenOrPoll()
          .then(() => this.refresh())
          .catch(() => undefined);
    }, this.options.reconnectMs).unref();
  }
}
