import type { Delivered } from './accounts/account-mail-jobs.ts';
import type { AccountMailJob, MailJobQueue } from './accounts/mail-jobs.ts';

/** A queued job as stored: its id, the job, and how many times delivering it was tried. */
export interface QueuedMail {
  readonly id: number;
  readonly job: AccountMailJob;
  readonly attempts: number;
}

/** The queue's rows (storage). Every node and the CLI share them; a claim keeps a job to one process. */
export interface MailQueueStore {
  add(job: AccountMailJob, now: Date): Promise<number>;
  /** Jobs due now and not claimed by a process still working on them, oldest first (ids: only these). */
  due(now: Date, limit: number, ids?: readonly number[]): Promise<QueuedMail[]>;
  /** Claims a job until `until` (counting an attempt); false when another process has it. */
  claim(id: number, now: Date, until: Date): Promise<boolean>;
  remove(id: number): Promise<void>;
  /** Unclaims a job to be tried again at `next`. */
  later(id: number, next: Date): Promise<void>;
}

export interface MailQueueReports {
  /** A mail was not sent: held back by the per-recipient limit, a failure to be tried again, or given up. */
  problem(message: string, error?: unknown): void;
}

/** Attempts of a job before it is given up (about a day with the back-off below). */
const MAX_ATTEMPTS = 8;
/** A claim lasts this long: a process that died while sending leaves the job to others after it. */
const CLAIM_MS = 2 * 60_000;
const BATCH = 20;
/**
 * A queued job is delivered this long after it was queued: after the answer has gone out, so the
 * delivery's work (looking up accounts, making links) never runs inside the request's time.
 */
const DELIVERY_DELAY_MS = 200;
/** 1, 2, 4 … minutes after each failed attempt, at most 6 hours. */
const backoffMs = (attempts: number): number => Math.min(6 * 3_600_000, 60_000 * 2 ** Math.max(0, attempts - 1));

/**
 * The account mails, queued in the database by the requests and sent after their answer: by the
 * process that queued them at once, and by every server's periodic look (mails a CLI queued
 * and could not send, mails of a process that crashed). A transport failure is tried again later
 * with a growing pause, and given up (reported) after eight attempts.
 */
export class MailQueue implements MailJobQueue {
  private readonly mine = new Set<number>();
  private running: Promise<void> | null = null;
  private soon: NodeJS.Timeout | null = null;
  private again = false;
  private stopped = false;

  /**
   * `ownOnly`: this process delivers only the jobs it queued (a command: it must not print the
   * links of mails a server queued); a server delivers every due job.
   */
  constructor(
    private readonly store: MailQueueStore,
    private readonly deliver: (job: AccountMailJob) => Promise<Delivered>,
    private readonly now: () => Date,
    readonly reports: MailQueueReports,
    private readonly ownOnly: boolean,
  ) {}

  async enqueue(job: AccountMailJob): Promise<void> {
    const id = await this.store.add(job, this.now());
    // Only a command needs to know its own (a server's set would keep the ids other nodes sent).
    if (this.ownOnly) this.mine.add(id);
    if (this.soon === null && !this.stopped) {
      this.soon = setTimeout(() => {
        this.soon = null;
        this.kick();
      }, DELIVERY_DELAY_MS);
      this.soon.unref();
    }
  }

  /** Delivers what is due, in the background (a run already going runs again after). */
  kick(): void {
    if (this.stopped) return;
    if (this.running !== null) {
      this.again = true;
      return;
    }
    this.running = this.deliverDue().finally(() => {
      this.running = null;
      if (this.again) {
        this.again = false;
        this.kick();
      }
    });
  }

  /** Delivers what was queued now instead of after the delay, and waits until it is sent or left for later (a command, before it exits). */
  async settled(): Promise<void> {
    if (this.soon !== null) {
      clearTimeout(this.soon);
      this.soon = null;
      this.kick();
    }
    while (this.running !== null) await this.running;
  }

  /** No new deliveries; waits for the one under way (before the database closes). Jobs not yet sent stay queued. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.soon !== null) clearTimeout(this.soon);
    this.soon = null;
    while (this.running !== null) await this.running;
  }

  private async deliverDue(): Promise<void> {
    try {
      for (;;) {
        const now = this.now();
        if (this.ownOnly && this.mine.size === 0) return;
        const jobs = await this.store.due(now, BATCH, this.ownOnly ? [...this.mine] : undefined);
        if (jobs.length === 0) return;
        for (const queued of jobs) await this.deliverOne(queued);
        if (jobs.length < BATCH || this.stopped) return;
      }
    } catch (error) {
      this.reports.problem('the mail queue could not be read: tried again at the next look', error);
    }
  }

  private async deliverOne(queued: QueuedMail): Promise<void> {
    const now = this.now();
    this.mine.delete(queued.id);
    if (!(await this.store.claim(queued.id, now, new Date(now.getTime() + CLAIM_MS)))) return;
    try {
      const { heldBack } = await this.deliver(queued.job);
      await this.store.remove(queued.id);
      if (heldBack > 0)
        this.reports.problem(
          `${heldBack} ${queued.job.kind} mail(s) not sent: their recipient was sent the most mails allowed this hour`,
        );
    } catch (error) {
      const attempts = queued.attempts + 1;
      if (attempts >= MAX_ATTEMPTS) {
        await this.store.remove(queued.id);
        this.reports.problem(`a ${queued.job.kind} mail was given up after ${attempts} attempts`, error);
      } else {
        await this.store.later(queued.id, new Date(this.now().getTime() + backoffMs(attempts)));
        this.reports.problem(
          `a ${queued.job.kind} mail could not be sent: tried again in ${Math.round(backoffMs(attempts) / 60_000)} min`,
          error,
        );
      }
    }
  }
}
