import { createHash } from 'node:crypto';
import type { X509Certificate } from 'node:crypto';
import { isAppError } from '../../errors.ts';
import { appIdOf, issuingAuthority, parseCertificate, revokedByList } from '../certificates/certificate-validator.ts';
import { decodeSignature, isValidSignature } from '../certificates/signature.ts';
import type { Trust } from '../certificates/trust.ts';
import { normaliseSerial } from '../certificates/x509.ts';

/**
 * The checks a Nextcloud server makes before it installs an archive (its Installer), made here
 * before the archive is listed: the app's certificate is issued by the upstream's authority (the
 * configured root.crt), is not on its revocation list, names the app as its CN, and the
 * signature (RSA, SHA-512) matches the exact bytes. Like the server, the validity dates are not
 * checked: an app whose certificate expired still installs from the original store, so it is
 * mirrored too. Null when the archive passes, else why not, in words an operator can act on.
 */
export function upstreamArchiveProblem(
  bytes: Buffer,
  appId: string,
  certificatePem: string,
  signature: string,
  trust: Trust,
): string | null {
  const checked = upstreamCertificate(appId, certificatePem, trust);
  if (typeof checked === 'string') return checked;
  let decoded: Buffer;
  try {
    decoded = decodeSignature(signature);
  } catch {
    return 'the signature is not base64';
  }
  if (!isValidSignature(bytes, decoded, checked.publicKey))
    return "the signature does not match the archive and the app's certificate (the archive was changed, or signed with another key)";
  return null;
}

/**
 * The certificate's part of the checks alone (no archive): what a change of the trust settings
 * (a new CRL, another root) can change about a release listed before, so it is judged again
 * without downloading anything. Null when the certificate passes, else why not.
 */
export function upstreamCertificateProblem(appId: string, certificatePem: string, trust: Trust): string | null {
  const checked = upstreamCertificate(appId, certificatePem, trust);
  return typeof checked === 'string' ? checked : null;
}

/**
 * Who decides whether a refusal or a listing still stands: a digest of the trust settings (the
 * authorities and every revoked serial). A release checked under another digest is judged again.
 */
export function trustDigest(trust: Trust): string {
  const hash = createHash('sha256');
  for (const authority of [...trust.authorities].map((a) => a.fingerprint256).sort()) hash.update(`A ${authority}\n`);
  for (const list of [...trust.revocationLists].sort((a, b) => a.authority.localeCompare(b.authority))) {
    for (const serial of [...list.revoked.keys()].sort()) hash.update(`R ${list.authority} ${serial}\n`);
  }
  return hash.digest('hex').slice(0, 32);
}

function upstreamCertificate(appId: string, certificatePem: string, trust: Trust): string | X509Certificate {
  let certificate;
  try {
    certificate = parseCertificate(certificatePem);
  } catch (error) {
    if (!isAppError(error)) throw error;
    return `the app's certificate cannot be used: ${error.detail}`;
  }
  const authority = issuingAuthority(certificate, trust);
  if (authority === null)
    return `the app's certificate is not issued by the upstream's code-signing authority (APPSTORE_MIRROR_ROOT_CERT); it names ${certificate.issuer.replace(/\n/g, ', ').slice(0, 200)}`;
  let cn: string;
  try {
    cn = appIdOf(certificate);
  } catch (error) {
    if (!isAppError(error)) throw error;
    return `the app's certificate cannot be used: ${error.detail}`;
  }
  if (cn !== appId) return `the certificate is issued for ${cn}, not for ${appId}`;
  const serial = normaliseSerial(certificate.serialNumber);
  const revokedAt = revokedByList(trust, authority, serial);
  if (revokedAt !== null)
    return `the app's certificate (serial ${serial}) was revoked on ${revokedAt.toISOString().slice(0, 10)} by the upstream's revocation list`;
  return certificate;
}
