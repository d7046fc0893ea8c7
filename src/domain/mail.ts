import type { Messages } from '../i18n/messages.ts';
/** A plain-text mail to one address. */
export interface OutgoingMail {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
}

/** Sends mail: through SMTP (`mail/smtp-mailer.ts`), or into files when none is configured (`mail/file-mailer.ts`). */
export interface Mailer {
  send(mail: OutgoingMail): Promise<void>;
}

/** A mail's body: the greeting, its paragraphs, and the store's signature, in the messages' language. */
export function mailText(m: Messages, greeting: string, paragraphs: readonly string[]): string {
  return `${greeting}\n\n${paragraphs.join('\n\n')}\n\n-- \n${m.format('mail.signature')}`;
}
