// @peculiar/x509 reads CRLs and CSRs and makes certificates (node:crypto can do neither); its
// dependency injection needs the reflect polyfill loaded first.
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

export { x509 };

/** What a scan for PEM blocks found. */
export interface PemScan {
  readonly blocks: string[];
  /** True when a BEGIN line has no END line after it: the text was cut short (a file half written). */
  readonly unterminated: boolean;
}

/**
 * The PEM blocks of one kind (`CERTIFICATE`, `X509 CRL`, …) in a text, in order. `label` is a
 * regular expression for the label. One pass: each BEGIN line is matched with the first END line
 * of the same label after it, and a BEGIN without an END ends the scan (and is reported), so
 * hostile text made of thousands of BEGIN lines costs linear time, not quadratic.
 */
export function scanPem(text: string, label: string): PemScan {
  const begin = new RegExp(`-----BEGIN (${label})-----`, 'g');
  const blocks: string[] = [];
  for (let found = begin.exec(text); found !== null; found = begin.exec(text)) {
    const endLine = `-----END ${found[1] ?? ''}-----`;
    const end = text.indexOf(endLine, begin.lastIndex);
    if (end < 0) return { blocks, unterminated: true };
    blocks.push(text.slice(found.index, end + endLine.length));
    begin.lastIndex = end + endLine.length;
  }
  return { blocks, unterminated: false };
}

/** The complete PEM blocks of one kind in a text (see scanPem); a cut-off last block is left out. */
export function pemBlocks(text: string, label: string): string[] {
  return scanPem(text, label).blocks;
}

/** Serial numbers compared as lower-case hex without leading zeros. */
export function normaliseSerial(serial: string): string {
  return serial.toLowerCase().replace(/^0+(?=.)/, '');
}
