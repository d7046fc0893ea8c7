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

const SIGNATURE = '\n\n-- \nThe app store';

/** The mail of a notification to one recipient; `links` are absolute. */
export function notificationMail(
  to: string,
  username: string,
  notification: Notification,
  links: { readonly settings: string; readonly site: string },
): OutgoingMail {
  const off = `\n\nYou get this because you maintain apps on the app store; turn this kind of mail off on your account page: ${links.settings}`;
  const hello = `Hello ${username},\n\n`;
  switch (notification.kind) {
    case 'publish-failed':
      return {
        to,
        subject: 'A publish of yours was refused',
        text: `${hello}A release you published (${notification.source}) was not saved:\n\n${notification.detail}\n\nNothing was changed. Fix what it says and publish again.${off}${SIGNATURE}`,
      };
    case 'release-retired':
      return {
        to,
        subject: `${notification.appId} ${notification.version} was retired by an administrator`,
        text: `${hello}An administrator of the app store retired ${notification.appId} ${notification.version}${notification.nightly ? ' (nightly)' : ''} (${notification.reason}${notification.note === '' ? '' : `: ${notification.note}`}). Nextcloud servers are no longer offered it.\n\nThe app's page for its maintainers: ${links.site}developer/apps/${notification.appId}${off}${SIGNATURE}`,
      };
    case 'certificate-expiring':
      return {
        to,
        subject: `The certificate of ${notification.appId} expires on ${notification.notAfter.slice(0, 10)}`,
        text: `${hello}The certificate registered for ${notification.appId} expires on ${notification.notAfter.slice(0, 10)}. After that, releases signed with it can no longer be published. Get a new certificate for the app id and register it (the certificate pages show how): ${links.site}developer/certificates?app=${notification.appId}${off}${SIGNATURE}`,
      };
    case 'platform-major':
      return {
        to,
        subject: `${notification.appId} has no release for Nextcloud ${notification.major}`,
        text: `${hello}Nextcloud ${notification.major} is out, and no release of ${notification.appId} supports it yet: servers upgraded to it cannot install or keep the app. Publish a release whose info.xml allows ${notification.major} (<nextcloud max-version="${notification.major}"/>).\n\nThe app: ${links.site}developer/apps/${notification.appId}${off}${SIGNATURE}`,
      };
    case 'token-expiring':
      return {
        to,
        subject: `Your token '${notification.name}' expires on ${notification.expiresAt.slice(0, 10)}`,
        text: `${hello}Your app store token '${notification.name}' expires on ${notification.expiresAt.slice(0, 16).replace('T', ' ')} UTC. Whatever uses it (a CI job, a script) will then be refused. Make a new token on your account page and put it where the old one is: ${links.site}account/tokens\n\nBetter still for CI: publish with trusted publishing, which needs no stored token at all: ${links.site}api/#trusted-publishing${off}${SIGNATURE}`,
      };
  }
}
