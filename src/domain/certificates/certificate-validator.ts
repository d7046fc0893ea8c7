import { said } from '../../i18n/said.ts';
import { X509Certificate } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { AppError } from '../../errors.ts';
import type { Trust } from './trust.ts';
import { appIdProblem } from '../app-id.ts';
import { normaliseSerial, pemBlocks, x509 } from './x509.ts';

export interface ValidCertificate {
  readonly appId: string;
  readonly serial: string;
  /** The authority that issued it (its subject, for revocations). */
  readonly issuer: string;
  readonly publicKey: KeyObject;
  readonly notAfter: Date;
}

/** The store's own revocations (`appstore ca revoke`), read at every check. */
export interface RevocationLookup {
  findRevocation(issuer: string, serial: string): Promise<{ revokedAt: Date } | null>;
}

const day = (date: Date): string => date.toISOString().slice(0, 10);

/** Exactly one PEM certificate, or a refusal that says what the text is instead. */
export function parseCertificate(pem: string): X509Certificate {
  if (pemBlocks(pem, '(?:RSA |EC |ENCRYPTED )?PRIVATE KEY').length > 0) {
    throw new AppError(
      'invalid_certificate',
      said`This is a private key: send the certificate (the .crt file), and never share the key.`,
    );
  }
  const blocks = pemBlocks(pem, 'CERTIFICATE');
  if (blocks.length !== 1) {
    throw new AppError(
      'invalid_certificate',
      blocks.length === 0
        ? said`The certificate is not a PEM certificate: expected one "-----BEGIN CERTIFICATE-----" block.`
        : said`Expected one certificate, found ${blocks.length}: send only the app's own certificate.`,
    );
  }
  try {
    return new X509Certificate(blocks[0] ?? '');
  } catch {
    throw new AppError(
      'invalid_certificate',
      said`The certificate block could not be read as an X.509 certificate (damaged or truncated base64?).`,
    );
  }
}

/** The SHA-256 fingerprint (`AB:CD:…`) of a stored certificate, or null when it cannot be read. */
export function certificateFingerprint(pem: string): string | null {
  try {
    return parseCertificate(pem).fingerprint256;
  } catch {
    return null;
  }
}

/** The certificate's subject CN, which must be a valid app id. */
export function appIdOf(certificate: X509Certificate): string {
  const names = new x509.X509Certificate(certificate.raw).subjectName.getField('CN');
  if (names.length !== 1)
    throw new AppError(
      'invalid_app_id',
      said`The certificate has ${names.length} CNs in its subject; it needs exactly one, the app id.`,
    );
  const cn = names[0] ?? '';
  const problem = appIdProblem(cn);
  if (problem !== null)
    throw new AppError('invalid_app_id', said`CN '${cn.slice(0, 64)}' is not a valid app id: ${problem}.`);
  return cn;
}

/** The configured authority that signed this certificate, or null. */
export function issuingAuthority(certificate: X509Certificate, trust: Trust): X509Certificate | null {
  return (
    trust.authorities.find(
      (authority) => authority.ca && certificate.checkIssued(authority) && certificate.verify(authority.publicKey),
    ) ?? null
  );
}

/** When a configured revocation list of the issuing authority revoked this serial, or null. */
export function revokedByList(trust: Trust, authority: X509Certificate, serial: string): Date | null {
  for (const list of trust.revocationLists) {
    const revokedAt = list.authority === authority.fingerprint256 ? list.revoked.get(serial) : undefined;
    if (revokedAt !== undefined) return revokedAt;
  }
  return null;
}

/**
 * Contract §5: one PEM certificate, signed by a configured authority, inside its validity period,
 * not revoked by a configured CRL nor by the store itself, with an app id as its CN.
 */
export async function validateCertificate(
  pem: string,
  trust: Trust,
  own: RevocationLookup,
  now: Date,
): Promise<ValidCertificate> {
  const certificate = parseCertificate(pem);
  const authority = issuingAuthority(certificate, trust);
  if (authority === null) {
    const issuer = certificate.issuer.replace(/\n/g, ', ');
    throw new AppError(
      'certificate_untrusted',
      said`The certificate is not signed by this store's authority (it names ${issuer.slice(0, 200)} as issuer).`,
    );
  }
  const notBefore = new Date(certificate.validFrom);
  const notAfter = new Date(certificate.validTo);
  if (now < notBefore)
    throw new AppError('certificate_not_yet_valid', said`The certificate is not valid before ${day(notBefore)}.`);
  if (now > notAfter)
    throw new AppError('certificate_expired', said`The certificate expired on ${day(notAfter)}: ask for a new one.`);
  const authorityNotAfter = new Date(authority.validTo);
  if (now > authorityNotAfter)
    throw new AppError(
      'certificate_untrusted',
      said`The authority that signed the certificate expired on ${day(authorityNotAfter)}.`,
    );

  const serial = normaliseSerial(certificate.serialNumber);
  const revokedAt = revokedByList(trust, authority, serial);
  if (revokedAt !== null)
    throw new AppError(
      'certificate_revoked',
      said`The certificate was revoked on ${day(revokedAt)} (serial ${serial}): ask for a new one.`,
    );
  const ownRevocation = await own.findRevocation(certificate.issuer, serial);
  if (ownRevocation !== null) {
    throw new AppError(
      'certificate_revoked',
      said`The certificate was revoked on ${day(ownRevocation.revokedAt)} by this store (serial ${serial}): ask for a new one.`,
    );
  }
  return {
    appId: appIdOf(certificate),
    serial,
    issuer: certificate.issuer,
    publicKey: certificate.publicKey,
    notAfter,
  };
}
