import { said } from '../../i18n/said.ts';
import { createPrivateKey, createPublicKey, randomBytes, webcrypto } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AppError } from '../../errors.ts';
import { appIdProblem } from '../app-id.ts';
import { STRONG_KEY_COMMAND, weakKeyProblem } from './key-strength.ts';
import { normaliseSerial, pemBlocks, x509 } from './x509.ts';

/** A certificate authority the store holds the key of: PEM certificate and PKCS #8 PEM key. */
export interface AuthorityMaterial {
  readonly certificatePem: string;
  readonly keyPem: string;
}

/** Where versions before 0.2 kept the store's authority (imported into the database on first start). */
export interface AuthorityFiles {
  readonly certificate: string;
  readonly key: string;
}

export function authorityFiles(dataDir: string): AuthorityFiles {
  return { certificate: path.join(dataDir, 'ca', 'authority.crt'), key: path.join(dataDir, 'ca', 'authority.key') };
}

/** The authority in these files, or null when there is none; half of one is refused. */
export function readAuthorityFiles(files: AuthorityFiles): AuthorityMaterial | null {
  const has = [fs.existsSync(files.certificate), fs.existsSync(files.key)];
  if (!has[0] && !has[1]) return null;
  if (has[0] !== has[1]) {
    throw new AppError(
      'authority_unavailable',
      said`Half an authority in ${path.dirname(files.key)}: the certificate or the key is missing. Restore it, or remove both to start a new one.`,
    );
  }
  return { certificatePem: fs.readFileSync(files.certificate, 'utf8'), keyPem: fs.readFileSync(files.key, 'utf8') };
}

const SIGNING = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } as const;
const YEAR_MS = 365 * 24 * 3600 * 1000;
const ISSUED_LIFETIME_MS = 10 * YEAR_MS;

const randomSerial = (): string => {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] ?? 0) & 0x7f; // positive
  return bytes.toString('hex');
};

/**
 * The authority's CN: the machine, the day it was made and the start of its serial number, so
 * that an authority rotated the same day is told apart from the retired one.
 */
export function authorityName(hostname: string, now: Date, serial: string): string {
  return `Appstore Code Signing Authority (${hostname.slice(0, 40)}, ${now.toISOString().slice(0, 10)}, ${serial.slice(0, 8)})`;
}

/** A new authority: RSA 4096 key, self-signed certificate valid 20 years. */
export async function generateAuthority(now: Date): Promise<AuthorityMaterial> {
  const keys = (await webcrypto.subtle.generateKey(
    { ...SIGNING, modulusLength: 4096, publicExponent: new Uint8Array([1, 0, 1]) },
    true,
    ['sign', 'verify'],
  )) as CryptoKeyPair;
  const serialNumber = randomSerial();
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber,
    // Built from attributes, not parsed from a string: the commas in the CN would end it there.
    name: [{ CN: [authorityName(os.hostname(), now, serialNumber)] }],
    notBefore: new Date(now.getTime() - 60_000),
    notAfter: new Date(now.getTime() + 20 * YEAR_MS),
    signingAlgorithm: SIGNING,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  const keyPem = `-----BEGIN PRIVATE KEY-----\n${pkcs8.toString('base64').replace(/.{64}/g, '$&\n').trimEnd()}\n-----END PRIVATE KEY-----\n`;
  return { certificatePem: certificate.toString('pem') + '\n', keyPem };
}

async function loadAuthority(
  material: AuthorityMaterial,
): Promise<{ certificate: InstanceType<typeof x509.X509Certificate>; key: CryptoKey }> {
  const pkcs8 = createPrivateKey(material.keyPem).export({ type: 'pkcs8', format: 'der' });
  const key = await webcrypto.subtle.importKey('pkcs8', pkcs8, SIGNING, false, ['sign']);
  return { certificate: new x509.X509Certificate(material.certificatePem), key };
}

/** A certificate request checked for an app certificate: its own signature, an RSA key, one CN that is an app id. */
export interface CheckedRequest {
  readonly appId: string;
  readonly request: InstanceType<typeof x509.Pkcs10CertificateRequest>;
}

/** Reads and checks a PEM certificate request (`openssl req -new`); refuses it with what to fix, a weak key included (key-strength.ts). */
export async function checkCertificateRequest(csrPem: string): Promise<CheckedRequest> {
  const blocks = pemBlocks(csrPem, 'CERTIFICATE REQUEST');
  if (blocks.length !== 1)
    throw new AppError(
      'invalid_csr',
      said`Expected one PEM certificate request ("-----BEGIN CERTIFICATE REQUEST-----"), as \`openssl req -new\` writes it.`,
      { csr: [said`paste the whole .csr file, BEGIN and END lines included`] },
    );
  let request: InstanceType<typeof x509.Pkcs10CertificateRequest>;
  try {
    request = new x509.Pkcs10CertificateRequest(blocks[0] ?? '');
  } catch {
    throw new AppError('invalid_csr', said`The certificate request could not be read (damaged or truncated?).`, {
      csr: [said`could not be read`],
    });
  }
  if (!(await request.verify()))
    throw new AppError('invalid_csr', said`The certificate request is not signed by its own key.`, {
      csr: [said`is not signed by its own key`],
    });
  if (request.publicKey.algorithm.name !== 'RSASSA-PKCS1-v1_5' && request.publicKey.algorithm.name !== 'RSA-PSS') {
    throw new AppError(
      'invalid_csr',
      said`The request's key is ${request.publicKey.algorithm.name}; app signatures need an RSA key: ${STRONG_KEY_COMMAND}`,
      { csr: [said`needs an RSA key`] },
    );
  }
  const weak = weakKeyProblem(
    createPublicKey({ key: Buffer.from(request.publicKey.rawData), format: 'der', type: 'spki' }),
    'request',
  );
  if (weak !== null) throw new AppError('invalid_csr', weak, { csr: [weak] });
  const names = request.subjectName.getField('CN');
  const cn = names[0] ?? '';
  const problem = names.length === 1 ? appIdProblem(cn) : 'the subject needs exactly one CN, the app id';
  if (problem !== null)
    throw new AppError('invalid_csr', said`CN '${cn.slice(0, 64)}' is not a valid app id: ${problem}.`, {
      csr: [said`its CN must be the app id: ${problem}`],
    });
  return { appId: cn, request };
}

/** The serial of an issued certificate (PEM), as revocations name it: lower-case hex. */
export function serialOf(certificatePem: string): string {
  return normaliseSerial(new x509.X509Certificate(certificatePem).serialNumber);
}

/**
 * Signs a certificate request whose CN is an app id (RSA keys only: release signatures are RSA
 * with SHA-512). Valid for 10 years, or until the authority expires if sooner. Returns PEM.
 */
export async function issueCertificate(csrPem: string, material: AuthorityMaterial, now: Date): Promise<string> {
  return signCertificateRequest(await checkCertificateRequest(csrPem), material, now);
}

/** `issueCertificate` for a request checked already (`checkCertificateRequest`). */
export async function signCertificateRequest(
  { appId, request }: CheckedRequest,
  material: AuthorityMaterial,
  now: Date,
): Promise<string> {
  const authority = await loadAuthority(material);
  const notAfter = new Date(Math.min(now.getTime() + ISSUED_LIFETIME_MS, authority.certificate.notAfter.getTime()));
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerial(),
    subject: [{ CN: [appId] }],
    issuer: authority.certificate.subjectName,
    notBefore: new Date(now.getTime() - 60_000),
    notAfter,
    signingAlgorithm: SIGNING,
    publicKey: request.publicKey,
    signingKey: authority.key,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(request.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(authority.certificate),
    ],
  });
  return certificate.toString('pem') + '\n';
}
