import { said } from '../../i18n/said.ts';
import type { Said } from '../../i18n/said.ts';
import { randomBytes } from 'node:crypto';
import { AppError, isAppError } from '../../errors.ts';
import type { FieldErrors, SaidFieldErrors } from '../../errors.ts';
import type { Acting } from '../audit/audit.ts';
import type { User } from '../accounts/user.ts';
import type { AdmittedPublish, PublishDeps, PublishInput, PublishResult } from './publish-release.ts';
import { admitPublish, publishAdmitted } from './publish-release.ts';
import { publishUpload } from './publish-upload.ts';
import type { UploadReader } from './publish-upload.ts';

/**
 * A publish started from the developer pages: the form answers at once with the job's page,
 * which refreshes until the job is done (a download of a large archive from a slow host takes
 * longer than a browser, or a proxy, waits for an answer). The job runs in the node that took the
 * form; its state is in the database, so every node can show it.
 */
export type PublishJobState =
  | { readonly status: 'running' }
  | { readonly status: 'done'; readonly result: PublishResult }
  | {
      readonly status: 'refused';
      readonly code: string;
      readonly detail: string;
      readonly fields?: FieldErrors;
      /** What translates the detail and the fields (src/i18n/said.ts), kept with them. */
      readonly said?: Said;
      readonly saidErrors?: SaidFieldErrors;
    }
  /** The store failed (logged), or the node running it stopped. */
  | { readonly status: 'failed'; readonly detail: string; readonly said?: Said };

export interface PublishJob {
  readonly id: string;
  readonly userId: number;
  readonly download: string;
  readonly nightly: boolean;
  readonly state: PublishJobState;
  readonly createdAt: Date;
  readonly finishedAt: Date | null;
}

export interface PublishJobStore {
  create(job: { id: string; userId: number; download: string; nightly: boolean }, now: Date): Promise<void>;
  finish(id: string, state: Exclude<PublishJobState, { status: 'running' }>, now: Date): Promise<void>;
  find(id: string): Promise<PublishJob | null>;
}

export interface PublishJobDeps {
  readonly publishing: PublishDeps;
  readonly jobs: PublishJobStore;
  /** Longer than any publish may take (the download's timeout and the checks): a job still running after it was lost with its node. */
  readonly maxRunMs: number;
  /** A failure of the store itself (not a refusal): for the log. */
  readonly failed: (error: unknown, jobId: string) => void;
}

const LOST = said`The publish was interrupted (the store restarted while it ran): nothing was saved unless the app page shows the release. Publish again.`;
const FAILED = said`The store could not finish this publish; the failure was logged. Nothing was saved: try again later.`;

/** The publishes this process runs, so that a shutdown can wait for them. */
export class PublishJobs {
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly deps: PublishJobDeps) {}

  /**
   * Checks what can be checked at once (refused here, with the field), records the job and
   * starts it; returns the job's id. Every other check happens in the job, in `publishRelease`.
   * With `waitMs`, it returns once the job has ended or that time has passed, whichever is first:
   * a publish that takes a moment shows its result on the first page, without a refresh.
   */
  async start(input: PublishInput, user: User, acting: Acting, options: { waitMs?: number } = {}): Promise<string> {
    // Refused here, before a job exists or anything is downloaded: the body, the daily limit, a
    // user with no app, too many publishes under way (issue 49).
    const admitted = await admitPublish(input, user, this.deps.publishing);
    const id = randomBytes(18).toString('base64url');
    const { now } = this.deps.publishing;
    try {
      await this.deps.jobs.create({ id, userId: user.id, download: input.download, nightly: input.nightly }, now());
    } catch (error) {
      admitted.slot.release();
      throw error;
    }
    const run = this.run(id, input, admitted, user, acting).finally(() => this.running.delete(run));
    this.running.add(run);
    if (options.waitMs !== undefined && options.waitMs > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([run, new Promise<void>((resolve) => (timer = setTimeout(resolve, options.waitMs)))]);
      clearTimeout(timer);
    }
    return id;
  }

  private async run(
    id: string,
    input: PublishInput,
    admitted: AdmittedPublish,
    user: User,
    acting: Acting,
  ): Promise<void> {
    let state: Exclude<PublishJobState, { status: 'running' }>;
    try {
      state = {
        status: 'done',
        result: await publishAdmitted(input, admitted, user, acting, this.deps.publishing, 'page'),
      };
    } catch (error) {
      state = this.ended(error, id);
    }
    try {
      await this.deps.jobs.finish(id, state, this.deps.publishing.now());
    } catch (error) {
      this.deps.failed(error, id);
    }
  }

  /**
   * An archive uploaded on the developer pages: published now (its bytes are in the request, so
   * nothing waits for a host), and recorded as a job (`download` ''), so that its result has the
   * same page. A refusal before the form is read (no app of theirs, too many at once) is thrown,
   * for the form to show; one about what was sent is the job's.
   */
  async runUpload(read: UploadReader, user: User, acting: Acting): Promise<string> {
    const id = randomBytes(18).toString('base64url');
    const { now } = this.deps.publishing;
    let created = false;
    const create = async (nightly: boolean): Promise<void> => {
      if (created) return;
      created = true;
      await this.deps.jobs.create({ id, userId: user.id, download: '', nightly }, now());
    };
    let reading = false;
    const run = (async () => {
      let state: Exclude<PublishJobState, { status: 'running' }>;
      try {
        const result = await publishUpload(
          async (into) => {
            reading = true;
            const form = await read(into);
            await create(form.nightly);
            return form;
          },
          user,
          acting,
          this.deps.publishing,
          'page',
        );
        state = { status: 'done', result };
      } catch (error) {
        if (!reading) throw error;
        state = this.ended(error, id);
      }
      await create(false);
      await this.deps.jobs.finish(id, state, now());
    })();
    const tracked = run.catch(() => undefined).finally(() => this.running.delete(tracked));
    this.running.add(tracked);
    await run;
    return id;
  }

  /** A job's end from what its publish threw: a refusal, or a failure of the store (logged). */
  private ended(error: unknown, id: string): Exclude<PublishJobState, { status: 'running' | 'done' }> {
    if (isAppError(error))
      return {
        status: 'refused',
        code: error.code,
        detail: error.detail,
        ...(error.errors === undefined ? {} : { fields: error.errors }),
        ...(error.said === undefined ? {} : { said: error.said }),
        ...(error.saidErrors === undefined ? {} : { saidErrors: error.saidErrors }),
      };
    this.deps.failed(error, id);
    return { status: 'failed', detail: FAILED.text, said: FAILED };
  }

  /** The job, for the user who started it only (others are told there is none). */
  async find(id: string, user: User): Promise<PublishJob> {
    const job = await this.deps.jobs.find(id);
    if (job === null || job.userId !== user.id)
      throw new AppError(
        'not_found',
        said`There is no such publish: the link is mistyped, or it was started by another account.`,
      );
    const age = this.deps.publishing.now().getTime() - job.createdAt.getTime();
    if (job.state.status === 'running' && age > this.deps.maxRunMs)
      return { ...job, state: { status: 'failed', detail: LOST.text, said: LOST } };
    return job;
  }

  /** Resolves once every publish this process started has finished. */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }
}
