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
