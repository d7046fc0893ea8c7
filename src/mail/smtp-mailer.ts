import type { Transporter } from 'nodemailer';
import type { Mailer } from '../domain/mail.ts';

export interface SmtpSettings {
  /** smtp://user:password@host:587 (STARTTLS when offered) or smtps://… (TLS from the start). */
  readonly url: string;
  /** The From address: `App Store <store@example.com>`. */
  readonly from: string;
}

/**
 * Mail through an SMTP server, by nodemailer; one pooled connection, re-opened when it drops.
 * nodemailer is loaded with the first mail, not before the port opens (issue 55).
 */
export function smtpMailer(settings: SmtpSettings): Mailer & { close(): void } {
  let transport: Promise<Transporter> | undefined;
  const open = (): Promise<Transporter> =>
    (transport ??= import('nodemailer').then(({ default: nodemailer }) =>
      nodemailer.createTransport({
        url: settings.url,
        pool: true,
        maxConnections: 2,
        connectionTimeout: 10_000,
        greetingTimeout: 10_000,
        socketTimeout: 30_000,
      } as Parameters<typeof nodemailer.createTransport>[0]),
    ));
  return {
    async send(mail) {
      await (await open()).sendMail({ from: settings.from, to: mail.to, subject: mail.subject, text: mail.text });
    },
    close: () => void transport?.then((opened) => opened.close()),
  };
}
