import { isAppError } from '../../errors.ts';
import type { Mailer, OutgoingMail } from '../mail.ts';
import { RATE_LIMITS } from '../rate-limit.ts';
import type { RateLimiter } from '../rate-limit.ts';
import { createLink, LINK_LIFETIME_MS, siteUrl } from './account-links.ts';
import {
  addressTakenMail,
  certificateDecisionMail,
  invitationMail,
  passwordResetMail,
  unlockRevocationMail,
  verificationMail,
} from './account-mails.ts';
import type { SessionDeps } from './sessions.ts';
import { notificationMail } from '../notifications/notifications.ts';
import { messagesFor } from '../../i18n/messages.ts';
import type { Messages } from '../../i18n/messages.ts';
import { isSiteLanguage } from '../../i18n/site-languages.ts';
import type { User } from './user.ts';
import type { AccountMailJob } from './mail-jobs.ts';

/** What turning a job into mails needs: the accounts and links, the per-recipient limit, and the transport. */
export interface AccountMailDeps extends Pick<SessionDeps, 'store' | 'keys' | 'now'> {
  readonly limiter: RateLimiter;
  readonly publicUrl: string;
  readonly transport: Mailer;
  /** The notification kinds a user turned off (issue 52). */
  readonly optedOut: (userId: number) => Promise<ReadonlySet<string>>;
}

/** What a delivery did: mails sent, and mails not sent because their recipient had too many this hour. */
export interface Delivered {
  readonly sent: number;
  readonly heldBack: number;
}

/** The messages a user's mails are written in: the language they last chose on the site, else English. */
function messagesOf(user: Pick<User, 'language'> | undefined): Messages {
  const language = user?.language;
  return messagesFor(isSiteLanguage(language) ? language : 'en');
}

/** The language of an address's mail that names no account: its account's, if it has one. */
async function addressMessages(email: string, deps: AccountMailDeps): Promise<Messages> {
  return messagesOf((await deps.store.findUsersByEmail(email))[0]);
}

/** The mails of one job, each made with a new link where it needs one. */
async function mailsOf(job: AccountMailJob, deps: AccountMailDeps): Promise<OutgoingMail[]> {
  const link = (path: string): string => siteUrl(deps, path);
  switch (job.kind) {
    case 'verify-email': {
      const user = await deps.store.findUserById(job.userId);
      if (user === null) return [];
      // The address belongs to another account: confirmed, or made earlier (a name signed up
      // with an address that already had an account, confirmed or not). Its owner is not mailed a
      // link that would confirm this account instead of theirs.
      const owners = await deps.store.findUsersByEmail(job.email);
      if (owners.some((owner) => owner.id !== user.id && (owner.emailVerified || owner.id < user.id))) return [];
      const secret = await createLink(user.id, 'verify-email', job.email, LINK_LIFETIME_MS['verify-email'], deps);
      return [
        verificationMail(messagesOf(user), job.email, user.username, link(`/account/verify/${secret}`), job.newAccount),
      ];
    }
    case 'signed-up': {
      const user = await deps.store.findUserById(job.userId);
      if (user === null) return [];
      // The address had an account before this one signed up (or one confirmed it since).
      const owners = await deps.store.findUsersByEmail(job.email);
      const owner = owners.find((other) => other.id !== user.id && (other.emailVerified || other.id < user.id));
      if (owner !== undefined)
        return [addressTakenMail(messagesOf(owner), job.email, link('/account/login'), link('/account/reset'))];
      const secret = await createLink(user.id, 'verify-email', job.email, LINK_LIFETIME_MS['verify-email'], deps);
      return [verificationMail(messagesOf(user), job.email, user.username, link(`/account/verify/${secret}`), true)];
    }
    case 'address-taken':
      return [
        addressTakenMail(
          await addressMessages(job.email, deps),
          job.email,
          link('/account/login'),
          link('/account/reset'),
        ),
      ];
    case 'password-reset': {
      const mails: OutgoingMail[] = [];
      for (const user of await deps.store.findUsersByEmail(job.email)) {
        if (!user.isActive || user.email === null) continue;
        await deps.store.deleteLinks(user.id, 'reset-password');
        const secret = await createLink(
          user.id,
          'reset-password',
          user.email,
          LINK_LIFETIME_MS['reset-password'],
          deps,
        );
        mails.push(passwordResetMail(messagesOf(user), user.email, user.username, link(`/account/reset/${secret}`)));
      }
      return mails;
    }
    case 'invitation': {
      const user = await deps.store.findUserById(job.userId);
      if (user === null || user.email === null) return [];
      await deps.store.deleteLinks(user.id, 'reset-password');
      const secret = await createLink(user.id, 'reset-password', user.email, LINK_LIFETIME_MS.invitation, deps);
      return [invitationMail(messagesOf(user), user.email, user.username, link(`/account/reset/${secret}`))];
    }
    case 'certificate-decided': {
      const user = await deps.store.findUserById(job.userId);
      if (user === null || user.email === null || !user.isActive) return [];
      return [
        certificateDecisionMail(messagesOf(user), user.email, user.username, job, link('/developer/certificates')),
      ];
    }
    case 'certificate-revoked': {
      const user = await deps.store.findUserById(job.userId);
      if (user === null || user.email === null || !user.isActive) return [];
      return [unlockRevocationMail(messagesOf(user), user.email, user.username, job, link('/developer/certificates'))];
    }
    case 'notify': {
      const mails: OutgoingMail[] = [];
      for (const userId of new Set(job.userIds)) {
        const user = await deps.store.findUserById(userId);
        if (user === null || user.email === null || !user.isActive) continue;
        if ((await deps.optedOut(userId)).has(job.notification.kind)) continue;
        mails.push(
          notificationMail(messagesOf(user), user.email, user.username, job.notification, {
            settings: link('/account#notifications'),
            site: link('/'),
          }),
        );
      }
      return mails;
    }
  }
}

/**
 * Sends the mails of one job. Each recipient gets at most RATE_LIMITS.mailsPerRecipient an hour,
 * whoever asked and from wherever (15 sign-ups for one address from 15 client addresses sent 15
 * mails): those over it are held back, not sent. A failure of the transport is thrown (the queue
 * tries again later).
 */
export async function deliverAccountMail(job: AccountMailJob, deps: AccountMailDeps): Promise<Delivered> {
  let sent = 0;
  let heldBack = 0;
  for (const mail of await mailsOf(job, deps)) {
    try {
      await deps.limiter.consume(RATE_LIMITS.mailsPerRecipient, mail.to.trim().toLowerCase());
    } catch (error) {
      if (!isAppError(error) || error.code !== 'rate_limited') throw error;
      heldBack += 1;
      continue;
    }
    await deps.transport.send(mail);
    sent += 1;
  }
  return { sent, heldBack };
}
