import nodemailer from 'nodemailer';
import type { Mailer } from '../domain/mail.ts';

export interface SmtpSettings {
  /** smtp://user:password@host:587 (STARTTLS when offered) or smtps://… (TLS from the start). */
  readonly url: string;
  /** The From address: `App Store <store@example.com>`. */
  readonly from: string;
}

/** Mail through an SMTP server, by nodemailer; one pooled connection, re-opened when it drops. */
export function smtpMailer(settings: SmtpSettings): Mailer & { close(): void } {
  const transport = nodemailer.createTransport({
    url: settings.url,
    pool: true,
    maxConnections: 2,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  } as Parameters<typeof nodemailer.createTransport>[0]);
  return {
    async send(mail) {
      await transport.sendMail({ from: settings.from, to: mail.to, subject: mail.subject, text: mail.text });
    },
    close: () => transport.close(),
  };
}
