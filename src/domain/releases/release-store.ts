import { said } from '../../i18n/said.ts';
import type { AuditEntry } from '../audit/audit.ts';
import type { Provenance } from '../accounts/token-scopes.ts';
import { AppError } from '../../errors.ts';
import type { RegisteredApp } from '../apps/app-registry.ts';
import type { ReleaseCandidate } from './release-data.ts';

export const appNotRegistered = (appId: string): AppError =>
  new AppError('app_not_registered', said`App ${appId} is not registered: register it first with POST /api/v1/apps.`);

/** What the archive itself adds to a release: where it came from, its signature and digest. */
export interface ArchiveFacts {
  /** The URL the listings give: the store's own when it keeps the archive, else the developer's. */
  readonly download: string;
  /** The URL as the developer gave it (not where redirects led: those links often expire), when the store keeps the archive; else null. */
  readonly developerDownload: string | null;
  /** Plain base64, no whitespace. */
  readonly signature: string;
  readonly sha256: string;
  readonly size: number;
  /** Where a release published through trusted publishing came from (issue 53); null otherwise. */
  readonly provenance: Provenance | null;
}

export interface StoredRelease {
  readonly id: number;
  readonly appId: string;
  readonly version: string;
  readonly isNightly: boolean;
  /** The archive's SHA-256. */
  readonly sha256: string;
}

/** The decisions the domain makes inside the save's transaction, on what is current there. */
export interface SaveRules {
  /**
   * Throws to refuse the save: given the app as it is inside the transaction (null when it was
   * deleted), after every other write has committed or waits for this one.
   */
  confirm(current: RegisteredApp | null): void;
  /** Whether the release is the app's latest, given its other stable versions. */
  isLatest(otherVersions: readonly string[]): boolean;
}

export interface SaveResult {
  readonly created: boolean;
  /** The SHA-256s of the archives the save replaced (the release's earlier bytes, earlier nightlies): others may still name them. */
  readonly replaced: readonly string[];
}

/** What publishing and deleting releases need from storage. */
export interface ReleaseStore {
  /**
   * In one write transaction (contract §6 step 6): `rules.confirm` judges the app as it is now;
   * (app, version, nightly) updated or created; a nightly deletes every earlier nightly; the
   * app-level data replaced when `rules.isLatest` says so for the app's other stable versions.
   */
  saveRelease(
    candidate: ReleaseCandidate,
    facts: ArchiveFacts,
    rules: SaveRules,
    now: Date,
    audit: (result: { created: boolean }) => AuditEntry,
  ): Promise<SaveResult>;
  findRelease(appId: string, version: string, nightly: boolean): Promise<StoredRelease | null>;
  /** False when the release was no longer there (a concurrent delete won). */
  deleteRelease(id: number, now: Date, audit: AuditEntry): Promise<boolean>;
}
