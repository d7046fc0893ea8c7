import { said } from '../../i18n/said.ts';
import { auditEntry } from '../audit/audit.ts';
import type { Acting, AuditEntry } from '../audit/audit.ts';
import { requireAdmin } from '../accounts/authorization.ts';
import type { DiscoverEntry } from './discover-document.ts';
import { parseDiscoverFile } from './discover-document.ts';

/** Where discover.json's entries are kept. */
export interface DiscoverStore {
  /** Every registered app's id (a showcase may name only these). */
  appIds(): Promise<ReadonlySet<string>>;
  /** Replaces every entry in one write; nothing is written (and the ETags stay) when they are the same. */
  replaceEntries(entries: readonly DiscoverEntry[], now: Date, audit: AuditEntry): Promise<{ changed: boolean }>;
  entries(): Promise<DiscoverEntry[]>;
}

export interface DiscoverDeps {
  readonly store: DiscoverStore;
  readonly now: () => Date;
}

export interface DiscoverImport {
  readonly entries: number;
  readonly changed: boolean;
}

/**
 * `appstore discover import FILE` (and the admin pages, later): the whole file is checked, then
 * replaces the entries in one transaction, or is refused whole.
 */
export async function importDiscover(data: unknown, acting: Acting, deps: DiscoverDeps): Promise<DiscoverImport> {
  requireAdmin(acting, said`change the discover entries.`);
  const appIds = await deps.store.appIds();
  const entries = parseDiscoverFile(data, { appExists: (id) => appIds.has(id) });
  const audit = auditEntry(acting, 'discover.imported', {
    details: { entries: entries.length, ids: entries.map((entry) => entry.id) },
  });
  const { changed } = await deps.store.replaceEntries(entries, deps.now(), audit);
  return { entries: entries.length, changed };
}

/** Every stored entry, expired ones included, as a file `importDiscover` takes back (`appstore discover export`, the admin pages' editor). */
export function exportDiscover(acting: Acting, deps: DiscoverDeps): Promise<DiscoverEntry[]> {
  requireAdmin(acting, said`read the discover entries with their hidden ones.`);
  return deps.store.entries();
}
