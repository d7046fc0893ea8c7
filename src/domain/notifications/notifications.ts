import type { Messages } from '../../i18n/messages.ts';
import { mailText } from '../mail.ts';
import type { OutgoingMail } from '../mail.ts';

/**
 * Notifications by mail to an app's owner and co-maintainers (issue 52): what they would
 * otherwise not learn until a user complains. Each kind can be turned off on the account page;
 * mails go after the answer through the mail queue, under its per-recipient hourly limit.
 */

export const NOTIFICATION_KINDS = [
  'publish-failed',
  'release-retired',
  'certificate-expiring',
  'platform-major',
  'token-expiring',
] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/** What the account page says of each kind. */
export const NOTIFICATION_LABELS: Record<NotificationKind, string> = {
  'publish-failed': 'A publish of mine was refused or failed (from the API, CI, or the publish page)',
  'release-retired': 'An administrator retired a release of an app I maintain',
  'certificate-expiring': "An app's certificate expires within 30 days",
  'platform-major': 'A new Nextcloud major version has no compatible release of an app I maintain',
  'token-expiring': 'A token of mine expires within a week',
};

export type Notification =
  | { readonly kind: 'publish-failed'; readonly source: string; readonly detail: string }
  | {
      readonly kind: 'release-retired';
      readonly appId: string;
      readonly version: string;
      readonly nightly: boolean;
      readonly reason: string;
      readonly note: string;
    }
  | { readonly kind: 'certificate-expiring'; readonly appId: string; readonly notAfter: string }
  | { readonly kind: 'platform-major'; readonly appId: string; readonly major: number }
  | { readonly kind: 'token-expiring'; readonly name: string; readonly expiresAt: string };

/** A notification to these users, each unless they turned its kind off: a job of the mail queue. */
export interface NotifyJob {
  readonly kind: 'notify';
  readonly userIds: readonly number[];
  readonly notification: Notification;
}

/** Where notifications go: the mail queue, delivered after the answer. */
export interface NotifyQueue {
  enqueue(job: NotifyJob): Promise<void>;
}

const RETIREMENT_REASON_MESSAGES = {
  security: 'dev.retireSecurity',
  broken: 'dev.retireBroken',
  other: 'dev.retireOther',
} as const;

/** The mail of a notification to one recipient, in their language; `links` are absolute. */
export function notificationMail(
  m: Messages,
  to: string,
  username: string,
  notification: Notification,
  links: { readonly settings: string; readonly site: string },
): OutgoingMail {
  const mail = (subject: string, paragraphs: readonly string[]): OutgoingMail => ({
    to,
    subject,
    text: mailText(m, m.format('mail.hello', { username }), [
      ...paragraphs,
      m.format('mail.notificationFooter', { link: links.settings }),
    ]),
  });
  switch (notification.kind) {
    case 'publish-failed':
      return mail(m.format('mail.publishFailedSubject'), [
        m.format('mail.publishFailedText', { source: notification.source }),
        notification.detail,
        m.format('mail.publishFailedNext'),
      ]);
    case 'release-retired': {
      const { appId, version, note } = notification;
      const known = RETIREMENT_REASON_MESSAGES[notification.reason as keyof typeof RETIREMENT_REASON_MESSAGES];
      const label = known === undefined ? notification.reason : m.format(known);
      const reason = note === '' ? label : `${label}: ${note}`;
      return mail(m.format('mail.retiredSubject', { appId, version }), [
        m.format(notification.nightly ? 'mail.retiredTextNightly' : 'mail.retiredText', { appId, version, reason }),
        m.format('mail.appPageForMaintainers', { link: `${links.site}developer/apps/${appId}` }),
      ]);
    }
    case 'certificate-expiring': {
      const { appId } = notification;
      const day = notification.notAfter.slice(0, 10);
      return mail(m.format('mail.certificateExpiringSubject', { appId, day }), [
        m.format('mail.certificateExpiringText', {
          appId,
          day,
          link: `${links.site}developer/certificates?app=${appId}`,
        }),
      ]);
    }
    case 'platform-major': {
      const { appId } = notification;
      const major = String(notification.major);
      return mail(m.format('mail.platformMajorSubject', { appId, major }), [
        m.format('mail.platformMajorText', { appId, major, element: `<nextcloud max-version="${major}"/>` }),
        m.format('mail.theApp', { link: `${links.site}developer/apps/${appId}` }),
      ]);
    }
    case 'token-expiring': {
      const { name } = notification;
      return mail(m.format('mail.tokenExpiringSubject', { name, day: notification.expiresAt.slice(0, 10) }), [
        m.format('mail.tokenExpiringText', {
          name,
          moment: notification.expiresAt.slice(0, 16).replace('T', ' '),
          link: `${links.site}account/tokens`,
        }),
        m.format('mail.tokenExpiringBetter', { link: `${links.site}api/#trusted-publishing` }),
      ]);
    }
  }
}
