// @peculiar/x509 reads CRLs and CSRs and makes certificates (node:crypto can do neither); its
// dependency injection needs the reflect polyfill loaded first.
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

export { x509 };

/** The PEM blocks of one kind (`CERTIFICATE`, `X509 CRL`, …) in a text, in order. */
export function pemBlocks(text: string, label: string): string[] {
  const pattern = new RegExp(`-----BEGIN ${label}-----[\\s\\S]*?-----END ${label}-----`, 'g');
  return text.match(pattern) ?? [];
}

/** Serial numbers compared as lower-case hex without leading zeros. */
export function normaliseSerial(serial: string): string {
  return serial.toLowerCase().replace(/^0+(?=.)/, '');
}
