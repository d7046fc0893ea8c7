import { said } from '../../i18n/said.ts';
import { createHash, randomBytes } from 'node:crypto';
import { AppError } from '../../errors.ts';
import { auditEntry } from '../audit/audit.ts';
import type { Acting, AuditEntry } from '../audit/audit.ts';
import { requireAdmin } from '../accounts/authorization.ts';

/**
 * Subscription keys (issue 52): Nextcloud servers with an enterprise subscription send
 * `X-NC-Subscription-Key` (to the official store only, unless pointed elsewhere); a key this
 * store knows lists the enterprise-only apps, as `include_enterprise=true` does. Administrators
 * make and revoke keys; only their SHA-256 is stored. A key checked is remembered a minute, so a
 * server's polls cost no query; a revocation reaches every node within that minute.
 */

export interface SubscriptionKeyRecord {
  readonly id: number;
  readonly label: string;
  readonly createdAt: string;
  readonly revokedAt: string | null;
}

export interface SubscriptionKeyStore {
  add(label: string, keyHash: string, now: Date, audit: AuditEntry): Promise<number>;
  revoke(id: number, now: Date, audit: AuditEntry): Promise<boolean>;
  list(): Promise<SubscriptionKeyRecord[]>;
  isValid(keyHash: string): Promise<boolean>;
}

export const hashKey = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex');

/** Makes a key (printed once, never stored): 32 random bytes, base64url. */
export async function addSubscriptionKey(
  label: string,
  acting: Acting,
  store: SubscriptionKeyStore,
  now: Date,
): Promise<{ id: number; key: string }> {
  requireAdmin(acting, said`make subscription keys.`);
  const name = label.trim();
  if (name === '' || name.length > 100)
    throw new AppError(
      'invalid_request',
      said`A subscription key needs a label of 1 to 100 characters (whose key it is).`,
    );
  const key = `ncsk_${randomBytes(32).toString('base64url')}`;
  const id = await store.add(
    name,
    hashKey(key),
    now,
    auditEntry(acting, 'settings.changed', { details: { subscriptionKey: 'added', label: name } }),
  );
  return { id, key };
}

export async function revokeSubscriptionKey(
  id: number,
  acting: Acting,
  store: SubscriptionKeyStore,
  now: Date,
): Promise<void> {
  requireAdmin(acting, said`revoke subscription keys.`);
  if (
    !(await store.revoke(
      id,
      now,
      auditEntry(acting, 'settings.changed', { details: { subscriptionKey: 'revoked', id } }),
    ))
  )
    throw new AppError('not_found', said`There is no subscription key ${id} in force.`);
}

const REMEMBER_MS = 60_000;
const MAX_REMEMBERED = 10_000;

/** Whether a request's key is valid, remembered a minute per key (valid or not). */
export class SubscriptionKeyCheck {
  private readonly seen = new Map<string, { valid: boolean; until: number }>();

  constructor(
    private readonly store: Pick<SubscriptionKeyStore, 'isValid'>,
    private readonly now: () => Date,
  ) {}

  async valid(header: string | string[] | undefined): Promise<boolean> {
    if (typeof header !== 'string' || header === '' || header.length > 200) return false;
    const hash = hashKey(header.trim());
    const at = this.now().getTime();
    const known = this.seen.get(hash);
    if (known !== undefined && known.until > at) return known.valid;
    const valid = await this.store.isValid(hash);
    // The oldest answer makes room (a Map keeps insertion order): a flood of unknown keys cannot
    // empty the memory of the valid ones all at once.
    if (this.seen.size >= MAX_REMEMBERED) this.seen.delete(this.seen.keys().next().value ?? '');
    this.seen.delete(hash);
    this.seen.set(hash, { valid, until: at + REMEMBER_MS });
    return valid;
  }
}
