import { AppError } from '../../errors.ts';
import type { ReleaseCandidate } from './release-data.ts';

export const appNotRegistered = (appId: string): AppError =>
  new AppError('app_not_registered', `App ${appId} is not registered: register it first with POST /api/v1/apps.`);

/** What the archive itself adds to a release: where it came from, its signature and digest. */
export interface ArchiveFacts {
  /** The URL as the developer gave it (not where redirects led: those links often expire). */
  readonly download: string;
  /** Plain base64, no whitespace. */
  readonly signature: string;
  readonly sha256: string;
  readonly size: number;
}

export interface StoredRelease {
  readonly id: number;
  readonly appId: string;
  readonly version: string;
  readonly isNightly: boolean;
}

/** What publishing and deleting releases need from storage. */
export interface ReleaseStore {
  /**
   * In one transaction (contract §6 step 6): the app must still exist (else app_not_registered);
   * (app, version, nightly) updated or created; a nightly deletes every earlier nightly; the
   * app-level data replaced when `isLatest` says so for the app's other stable versions.
   */
  saveRelease(candidate: ReleaseCandidate, facts: ArchiveFacts, isLatest: (otherVersions: readonly string[]) => boolean, now: Date): Promise<{ created: boolean }>;
  findRelease(appId: string, version: string, nightly: boolean): Promise<StoredRelease | null>;
  /** False when the release was no longer there (a concurrent delete won). */
  deleteRelease(id: number, now: Date): Promise<boolean>;
}
