import { X509Certificate } from 'node:crypto';
import { AppError } from '../../errors.ts';
import { normaliseSerial, pemBlocks, x509 } from './x509.ts';

/** A revocation list whose signature verified against one of the authorities. */
export interface RevocationList {
  /** SHA-256 fingerprint of the authority that signed it. */
  readonly authority: string;
  readonly revoked: ReadonlyMap<string, Date>;
  readonly nextUpdate: Date | null;
}

/** The authorities app certificates must chain to, and the revocation lists that count. */
export interface Trust {
  readonly authorities: readonly X509Certificate[];
  readonly revocationLists: readonly RevocationList[];
}

export type Warn = (message: string) => void;

const misconfigured = (problem: string): AppError => new AppError('configuration_error', `The store's trust is misconfigured: ${problem}.`);

/**
 * Builds the trust from a PEM file of authorities (root plus intermediates) and an optional PEM
 * file of CRLs. A CRL counts only when its signature verifies against one of the authorities;
 * one past its next update is still applied, with a warning.
 */
export async function loadTrust(authorityPem: string, crlPem: string | null, now: Date, warn: Warn): Promise<Trust> {
  const authorities = pemBlocks(authorityPem, 'CERTIFICATE').map((pem, index) => {
    try {
      return new X509Certificate(pem);
    } catch {
      throw misconfigured(`certificate #${index + 1} of the certificate authority file (APPSTORE_CA_CERT) cannot be read`);
    }
  });
  if (authorities.length === 0) throw misconfigured('the certificate authority file (APPSTORE_CA_CERT) holds no PEM certificate');
  const revocationLists: RevocationList[] = [];
  for (const [index, pem] of (crlPem === null ? [] : pemBlocks(crlPem, 'X509 CRL')).entries()) {
    let crl: InstanceType<typeof x509.X509Crl>;
    try {
      crl = new x509.X509Crl(pem);
    } catch {
      throw misconfigured(`CRL #${index + 1} of the revocation list file (APPSTORE_CRL) cannot be read`);
    }
    const signer = await findSigner(crl, authorities);
    if (signer === null) {
      warn(`CRL #${index + 1} (issuer ${crl.issuer}) is not signed by a configured authority: ignored`);
      continue;
    }
    const nextUpdate = crl.nextUpdate ?? null;
    if (nextUpdate !== null && nextUpdate < now) {
      warn(`CRL #${index + 1} (issuer ${crl.issuer}) is past its next update (${nextUpdate.toISOString()}): still applied; fetch a new one`);
    }
    const revoked = new Map(crl.entries.map((entry) => [normaliseSerial(entry.serialNumber), entry.revocationDate]));
    revocationLists.push({ authority: signer.fingerprint256, revoked, nextUpdate });
  }
  return { authorities, revocationLists };
}

async function findSigner(crl: InstanceType<typeof x509.X509Crl>, authorities: readonly X509Certificate[]): Promise<X509Certificate | null> {
  for (const authority of authorities) {
    try {
      if (await crl.verify({ publicKey: new x509.X509Certificate(authority.raw) })) return authority;
    } catch {
      // another key type or algorithm: not this authority
    }
  }
  return null;
}
