import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Mailer, OutgoingMail } from '../domain/mail.ts';

/** RFC 2047 for a header with non-ASCII text. */
function encodeHeader(value: string): string {
  const flat = value.replace(/[\r\n]+/g, ' ');
  return /^[\x20-\x7e]*$/.test(flat) ? flat : `=?UTF-8?B?${Buffer.from(flat, 'utf8').toString('base64')}?=`;
}

function asEml(mail: OutgoingMail, from: string, at: Date): string {
  return [
    `From: ${encodeHeader(from)}`,
    `To: ${encodeHeader(mail.to)}`,
    `Subject: ${encodeHeader(mail.subject)}`,
    `Date: ${at.toUTCString()}`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: 8bit',
    '',
    mail.text.replace(/\r?\n/g, '\r\n'),
  ].join('\r\n');
}

/**
 * Without an SMTP server (a newcomer on one machine), mails are written as `.eml` files into a
 * directory readable only by the service's user, and each mail's links are logged, so that
 * sign-up and password reset can be completed from the log. The service warns about this at start.
 */
export function fileMailer(
  directory: string,
  from: string,
  log: (message: string) => void,
  now: () => Date = () => new Date(),
): Mailer {
  return {
    async send(mail) {
      await fs.promises.mkdir(directory, { recursive: true, mode: 0o700 });
      const at = now();
      const name = `${at.toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}.eml`;
      const file = path.join(directory, name);
      await fs.promises.writeFile(file, asEml(mail, from, at), { mode: 0o600 });
      const links = mail.text.match(/https?:\/\/\S+/g) ?? [];
      log(
        `mail to ${mail.to} ("${mail.subject}") written to ${file}${links.length === 0 ? '' : `; its link:\n${links.join('\n')}`}`,
      );
    },
  };
}
