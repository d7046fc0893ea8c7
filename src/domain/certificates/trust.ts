import { X509Certificate } from 'node:crypto';
import { AppError } from '../../errors.ts';
import { normaliseSerial, scanPem, x509 } from './x509.ts';

/** A revocation list whose signature verified against one of the authorities. */
export interface RevocationList {
  /** SHA-256 fingerprint of the authority that signed it. */
  readonly authority: string;
  readonly revoked: ReadonlyMap<string, Date>;
  readonly thisUpdate: Date;
  readonly nextUpdate: Date | null;
  /** Its CRL number (extension 2.5.29.20), when it has one. */
  readonly number: bigint | null;
}

/** The authorities app certificates must chain to, and the revocation lists that count. */
export interface Trust {
  readonly authorities: readonly X509Certificate[];
  readonly revocationLists: readonly RevocationList[];
}

export type Warn = (message: string) => void;

const misconfigured = (problem: string): AppError =>
  new AppError('configuration_error', `The store's trust is misconfigured: ${problem}.`);

const CRL_FILE = 'the revocation list file (APPSTORE_CRL)';
const CRL_NUMBER_OID = '2.5.29.20';

/**
 * Builds the trust from a PEM file of authorities (root plus intermediates) and an optional PEM
 * file of CRLs. Each file is taken whole or refused whole: a file cut inside a block, a CRL file
 * without a CRL, a CRL that cannot be read or whose signature verifies against none of the
 * authorities are errors, never skipped (a skipped CRL would silently un-revoke what it lists).
 * A CRL past its next update is still applied, with a warning.
 */
export async function loadTrust(authorityPem: string, crlPem: string | null, now: Date, warn: Warn): Promise<Trust> {
  const authorityScan = scanPem(authorityPem, 'CERTIFICATE');
  if (authorityScan.unterminated)
    throw misconfigured(
      'the certificate authority file (APPSTORE_CA_CERT) ends inside a certificate (cut short, or still being written)',
    );
  const authorities = authorityScan.blocks.map((pem, index) => {
    try {
      return new X509Certificate(pem);
    } catch {
      throw misconfigured(
        `certificate #${index + 1} of the certificate authority file (APPSTORE_CA_CERT) cannot be read`,
      );
    }
  });
  if (authorities.length === 0)
    throw misconfigured('the certificate authority file (APPSTORE_CA_CERT) holds no PEM certificate');
  const revocationLists: RevocationList[] = [];
  if (crlPem === null) return { authorities, revocationLists };
  const crlScan = scanPem(crlPem, 'X509 CRL');
  if (crlScan.unterminated) throw misconfigured(`${CRL_FILE} ends inside a CRL (cut short, or still being written)`);
  if (crlScan.blocks.length === 0)
    throw misconfigured(`${CRL_FILE} holds no PEM CRL (-----BEGIN X509 CRL-----); to use none, unset APPSTORE_CRL`);
  for (const [index, pem] of crlScan.blocks.entries()) {
    let crl: InstanceType<typeof x509.X509Crl>;
    let number: bigint | null;
    try {
      crl = new x509.X509Crl(pem);
      number = crlNumber(crl);
    } catch {
      throw misconfigured(`CRL #${index + 1} of ${CRL_FILE} cannot be read`);
    }
    const signer = await findSigner(crl, authorities);
    if (signer === null)
      throw misconfigured(
        `CRL #${index + 1} of ${CRL_FILE} (issuer ${crl.issuer}) is not signed by a configured authority`,
      );
    const nextUpdate = crl.nextUpdate ?? null;
    if (nextUpdate !== null && nextUpdate < now) {
      warn(
        `CRL #${index + 1} (issuer ${crl.issuer}) is past its next update (${nextUpdate.toISOString()}): still applied; fetch a new one`,
      );
    }
    const revoked = new Map(crl.entries.map((entry) => [normaliseSerial(entry.serialNumber), entry.revocationDate]));
    revocationLists.push({ authority: signer.fingerprint256, revoked, thisUpdate: crl.thisUpdate, nextUpdate, number });
  }
  return { authorities, revocationLists };
}

/** The CRL number extension's integer (DER INTEGER), or null without one; throws when it is malformed. */
function crlNumber(crl: InstanceType<typeof x509.X509Crl>): bigint | null {
  const extension = crl.getExtension(CRL_NUMBER_OID);
  if (extension === null) return null;
  const der = new Uint8Array(extension.value);
  const length = der[1] ?? 0;
  if (der[0] !== 0x02 || length === 0 || length > 20 || der.length !== 2 + length)
    throw new Error('malformed CRL number');
  let value = 0n;
  for (const byte of der.subarray(2)) value = (value << 8n) | BigInt(byte);
  return value;
}

/**
 * Why `next` may not replace `previous`, or null when it may: for every authority still
 * configured that had a CRL, the new lists must have one too, and the newest of them must not be
 * older (thisUpdate) or lower-numbered (CRL number) than the newest before. An older CRL would
 * bring revoked certificates back.
 */
export function crlRegression(previous: Trust, next: Trust): string | null {
  const stillConfigured = new Set(next.authorities.map((authority) => authority.fingerprint256));
  const newest = (trust: Trust, authority: string): RevocationList | undefined =>
    trust.revocationLists
      .filter((list) => list.authority === authority)
      .sort((a, b) => b.thisUpdate.getTime() - a.thisUpdate.getTime())[0];
  for (const authority of new Set(previous.revocationLists.map((list) => list.authority))) {
    if (!stillConfigured.has(authority)) continue;
    const before = newest(previous, authority);
    const after = newest(next, authority);
    const name =
      next.authorities.find((candidate) => candidate.fingerprint256 === authority)?.subject.replace(/\n/g, ', ') ??
      authority;
    if (before === undefined) continue;
    if (after === undefined) return `${CRL_FILE} no longer holds a CRL of ${name}, which the one in force has`;
    if (after.thisUpdate < before.thisUpdate) {
      return `the CRL of ${name} in ${CRL_FILE} is older (issued ${after.thisUpdate.toISOString()}) than the one in force (issued ${before.thisUpdate.toISOString()})`;
    }
    if (after.number !== null && before.number !== null && after.number < before.number) {
      return `the CRL of ${name} in ${CRL_FILE} has number ${after.number}, lower than the one in force (${before.number})`;
    }
  }
  return null;
}

async function findSigner(
  crl: InstanceType<typeof x509.X509Crl>,
  authorities: readonly X509Certificate[],
): Promise<X509Certificate | null> {
  for (const authority of authorities) {
    try {
      if (await crl.verify({ publicKey: new x509.X509Certificate(authority.raw) })) return authority;
    } catch {
      // another key type or algorithm: not this authority
    }
  }
  return null;
}
