import type { NotifyJob } from '../notifications/notifications.ts';

/**
 * A mail the account use cases ask for. The request only records it (one row, whatever the
 * case): which accounts an address has, the links and the mail itself are made after the answer,
 * so neither the answer nor its timing tells whether an address has an account. A crash loses
 * nothing: the queue is in the database.
 */
export type AccountMailJob =
  /** A link confirming `email` for the account (a new account, or a new address). */
  | { readonly kind: 'verify-email'; readonly userId: number; readonly email: string; readonly newAccount: boolean }
  /**
   * A new account signed up with `email`: a confirmation link, or, when another account has the
   * address, a note to its owner instead (decided here, after the answer: the sign-up request
   * never looks the address up, so its time cannot tell).
   */
  | { readonly kind: 'signed-up'; readonly userId: number; readonly email: string }
  /** Someone signed up, or changed their address, with an address that has an account: its owner is told. */
  | { readonly kind: 'address-taken'; readonly email: string }
  /** "Forgot your password": a reset link for every active account with this address (none: no mail). */
  | { readonly kind: 'password-reset'; readonly email: string }
  /** An operator's invitation: a link that sets the first password. */
  | { readonly kind: 'invitation'; readonly userId: number }
  /** An administrator approved or rejected the user's certificate request (the certificate is on the developer pages). */
  | {
      readonly kind: 'certificate-decided';
      readonly userId: number;
      readonly appId: string;
      readonly issued: boolean;
      readonly reason: string;
    }
  /** A certificate the user got for an app while its owner had it unlocked for transfer was revoked when the unlock ended. */
  | { readonly kind: 'certificate-revoked'; readonly userId: number; readonly appId: string; readonly serial: string }
  /** A notification (issue 52) to these users, each unless they turned its kind off. */
  | NotifyJob;

/** Where the use cases leave their mails: the queue (storage), delivered after the answer. */
export interface MailJobQueue {
  enqueue(job: AccountMailJob): Promise<void>;
}
