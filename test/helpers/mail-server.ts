import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  readonly to: string[];
  readonly subject: string;
  /** The decoded text body. */
  readonly text: string;
  /** The http(s) links in the body. */
  readonly links: string[];
}

export interface MailServer {
  /** smtp://127.0.0.1:<port>: what APPSTORE_SMTP_URL is set to. */
  readonly url: string;
  readonly received: ReceivedMail[];
  /** The next mail to this address (waits up to 5 s for it). */
  nextMailTo(address: string): Promise<ReceivedMail>;
  close(): Promise<void>;
}

function decodeQuotedPrintable(text: string): string {
  const bytes = text
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

function decodeHeader(value: string): string {
  // RFC 2047: the space between adjacent encoded words is not text, and a character may be split
  // across two of them, so a run of words is decoded as one sequence of bytes.
  return value.replace(/(?:=\?utf-8\?[BQ]\?[^?]*\?=\s*)+/gi, (run) => {
    const bytes = [...run.matchAll(/=\?utf-8\?([BQ])\?([^?]*)\?=/gi)].map(([, kind = '', data = '']) =>
      kind.toUpperCase() === 'B'
        ? Buffer.from(data, 'base64')
        : Buffer.from(
            data
              .replace(/_/g, ' ')
              .replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
            'latin1',
          ),
    );
    return Buffer.concat(bytes).toString('utf8') + (/\s$/.test(run) ? ' ' : '');
  });
}

/** Splits a single-part RFC 5322 message into a subject and a decoded body. */
function parseMessage(raw: string): { subject: string; text: string } {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const body = raw.slice(split + 4);
  const header = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(head)?.[1] ?? '';
  const encoding = header('Content-Transfer-Encoding').toLowerCase();
  const text =
    encoding === 'quoted-printable'
      ? decodeQuotedPrintable(body)
      : encoding === 'base64'
        ? Buffer.from(body, 'base64').toString('utf8')
        : body;
  return { subject: decodeHeader(header('Subject')), text: text.replace(/\r\n/g, '\n') };
}

/** A real SMTP server on loopback (the `smtp-server` package) that keeps what it receives. */
export async function startMailServer(): Promise<MailServer> {
  const received: ReceivedMail[] = [];
  const waiters: Array<() => void> = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const { subject, text } = parseMessage(Buffer.concat(chunks).toString('latin1'));
        const to = session.envelope.rcptTo.map((r) => r.address);
        received.push({ to, subject, text, links: text.match(/https?:\/\/[^\s]+/g) ?? [] });
        for (const wake of waiters.splice(0)) wake();
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  const seen = new Map<string, number>();
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    async nextMailTo(address) {
      // No deadline of its own (scripts/run-tests.mjs's timeout ends a wait that never succeeds);
      // every 10 s it says what it waits for.
      let reported = Date.now();
      for (;;) {
        const from = seen.get(address) ?? 0;
        const index = received.findIndex((mail, i) => i >= from && mail.to.includes(address));
        if (index >= 0) {
          seen.set(address, index + 1);
          return received[index] as ReceivedMail;
        }
        if (Date.now() - reported >= 10_000) {
          reported = Date.now();
          console.error(
            `still waiting for a mail to ${address} (received: ${received.map((m) => `${m.to.join(',')}: ${m.subject}`).join('; ')})`,
          );
        }
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200);
        });
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
