import { said } from '../../i18n/said.ts';
import { randomBytes } from 'node:crypto';
import { AppError } from '../../errors.ts';
import type { MailJobQueue } from './mail-jobs.ts';
import type { SessionDeps } from './sessions.ts';
import { hmacHex } from './token-codec.ts';
import type { StoredLink } from './user.ts';

/** What a mailed link does: confirm an address (sign-up, change of address) or set a new password. */
export type LinkPurpose = 'verify-email' | 'reset-password';

/** How long a link works. A reset link is short-lived; an invitation sets a password too, but has days. */
export const LINK_LIFETIME_MS = {
  'verify-email': 3 * 86_400_000,
  'reset-password': 3_600_000,
  invitation: 7 * 86_400_000,
} as const;

/** The collaborators of the self-service account use cases (sign-up, reset, account page). */
export interface SelfServiceDeps extends SessionDeps {
  /** Where the account mails are queued: made and sent after the answer (account-mail-jobs.ts). */
  readonly mail: MailJobQueue;
  /** The site's address as visitors reach it, without a trailing slash: the links in mails start with it. */
  readonly publicUrl: string;
  /** False: sign-up by invitation only (APPSTORE_SIGNUP=closed). */
  readonly signUpOpen: boolean;
}

export const INVALID_LINK = said`This link does not work: it is mistyped, expired or was already used. Ask for a new one (sign in again, or reset your password).`;

const secretHash = (deps: Pick<SessionDeps, 'keys'>, secret: string): string =>
  hmacHex(deps.keys.session, `link ${secret}`);

/** Creates a link for the user and returns its secret, the part of the URL only the mail holds. */
export async function createLink(
  userId: number,
  purpose: LinkPurpose,
  email: string | null,
  lifetimeMs: number,
  deps: Pick<SessionDeps, 'keys' | 'store' | 'now'>,
): Promise<string> {
  const secret = randomBytes(32).toString('base64url');
  const now = deps.now();
  await deps.store.insertLink(
    secretHash(deps, secret),
    { userId, purpose, email, expiresAt: new Date(now.getTime() + lifetimeMs) },
    now,
  );
  return secret;
}

function refuseUnusable(link: StoredLink | null, purpose: LinkPurpose, now: Date): StoredLink {
  if (link === null || link.purpose !== purpose || link.expiresAt.getTime() <= now.getTime())
    throw new AppError('invalid_link', INVALID_LINK);
  return link;
}

/** The link, without using it up (the page that asks for a new password); invalid_link when it does not work. */
export async function readLink(
  secret: string,
  purpose: LinkPurpose,
  deps: Pick<SessionDeps, 'keys' | 'store' | 'now'>,
): Promise<StoredLink> {
  return refuseUnusable(await deps.store.findLink(secretHash(deps, secret)), purpose, deps.now());
}

/** Uses the link up: it works once, even for two requests at the same moment. */
export async function takeLink(
  secret: string,
  purpose: LinkPurpose,
  deps: Pick<SessionDeps, 'keys' | 'store' | 'now'>,
): Promise<StoredLink> {
  return refuseUnusable(await deps.store.takeLink(secretHash(deps, secret)), purpose, deps.now());
}

/** The URL of a page of the site, for a mail. */
export function siteUrl(deps: Pick<SelfServiceDeps, 'publicUrl'>, path: string): string {
  return `${deps.publicUrl}${path}`;
}
