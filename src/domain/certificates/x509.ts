// @peculiar/x509 reads CRLs and CSRs and makes certificates (node:crypto can do neither).
import { webcrypto } from 'node:crypto';
import { createRequire } from 'node:module';
import type * as X509 from '@peculiar/x509';

let loaded: typeof X509 | undefined;

/**
 * The library, loaded when a certificate, request or CRL is first read: evaluating its ASN.1
 * schemas took 30 ms of every start, before the port opened, on stores that read none then
 * (issue 55). Its dependency injection needs the reflect polyfill loaded first.
 */
function library(): typeof X509 {
  if (loaded === undefined) {
    const load = createRequire(import.meta.url);
    load('reflect-metadata');
    const x509 = load('@peculiar/x509') as typeof X509;
    x509.cryptoProvider.set(webcrypto as unknown as Crypto);
    loaded = x509;
  }
  return loaded;
}

/** @peculiar/x509, as `x509.X509Certificate` and the like: each use loads it the first time. */
export const x509: typeof X509 = new Proxy({} as typeof X509, {
  get: (_target, name) => library()[name as keyof typeof X509],
});

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
