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
export function upstreamArchiveProblem(bytes: Buffer, appId: string, certificatePem: string, signature: string, trust: Trust): string | null {
  let certificate;
  try {
    certificate = parseCertificate(certificatePem);
  } catch (error) {
    if (!isAppError(error)) throw error;
    return `the app's certificate cannot be used: ${error.detail}`;
  }
  const authority = issuingAuthority(certificate, trust);
  if (authority === null) return `the app's certificate is not issued by the upstream's code-signing authority (APPSTORE_MIRROR_ROOT_CERT); it names ${certificate.issuer.replace(/\n/g, ', ').slice(0, 200)}`;
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
  if (revokedAt !== null) return `the app's certificate (serial ${serial}) was revoked on ${revokedAt.toISOString().slice(0, 10)} by the upstream's revocation list`;
  let decoded: Buffer;
  try {
    decoded = decodeSignature(signature);
  } catch {
    return 'the signature is not base64';
  }
  if (!isValidSignature(bytes, decoded, certificate.publicKey)) return "the signature does not match the archive and the app's certificate (the archive was changed, or signed with another key)";
  return null;
}
