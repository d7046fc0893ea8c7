import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { validateCertificate } from '../../src/domain/certificates/certificate-validator.ts';
import { loadTrust } from '../../src/domain/certificates/trust.ts';
import { AppError } from '../../src/errors.ts';
import { REALDATA, REALDATA_SKIP } from '../helpers/certificate-fixtures.ts';

// Real app certificates of the original store, checked against Nextcloud's code-signing
// authority and its CRL. Their private keys are not public, so this checks the certificate path.
// A fixed date inside every certificate's validity keeps the test meaningful after some expire.
const AT = new Date('2026-06-01T00:00:00Z');
const none = { findRevocation: async () => null };

describe('the real certificate corpus', () => {
  const dir = REALDATA ?? '';
  const read = (file: string): string => fs.readFileSync(path.join(dir, file), 'utf8');
  const trust = () => loadTrust(read('codesigning/root.crt'), read('codesigning/root.crl'), AT, () => undefined);

  test('every certificate in certs/ is valid for its CN', { skip: REALDATA_SKIP }, async () => {
    const files = fs.readdirSync(path.join(dir, 'certs')).filter((f) => f.endsWith('.crt'));
    assert.ok(files.length >= 30, `found ${files.length}`);
    const loaded = await trust();
    assert.equal(loaded.revocationLists.length, 1, "root.crl verifies against Nextcloud's intermediate");
    for (const file of files) {
      const pem = read(path.join('certs', file));
      const certificate = new X509Certificate(pem);
      assert.ok(
        new Date(certificate.validFrom) <= AT && AT <= new Date(certificate.validTo),
        `${file}: the test date lies outside its validity`,
      );
      const valid = await validateCertificate(pem, loaded, none, AT);
      assert.equal(valid.appId, file.replace(/\.crt$/, ''), file);
    }
  });

  test('every certificate in certs/revoked/ is refused as revoked', { skip: REALDATA_SKIP }, async () => {
    const files = fs.readdirSync(path.join(dir, 'certs', 'revoked'));
    assert.equal(files.length, 3);
    const loaded = await trust();
    for (const file of files) {
      const serial = /serial([0-9A-F]+)\.crt$/.exec(file)?.[1]?.toLowerCase();
      await assert.rejects(
        validateCertificate(read(path.join('certs', 'revoked', file)), loaded, none, AT),
        (error: unknown) => {
          assert.ok(error instanceof AppError);
          assert.equal(error.code, 'certificate_revoked', `${file}: ${error.detail}`);
          assert.ok(error.detail.includes(`serial ${serial}`), error.detail);
          return true;
        },
      );
    }
  });

  test(
    'without the CRL, the revoked ones would pass: the refusal comes from the CRL',
    { skip: REALDATA_SKIP },
    async () => {
      const loaded = await loadTrust(read('codesigning/root.crt'), null, AT, () => undefined);
      const valid = await validateCertificate(read('certs/revoked/polls-serial104D.crt'), loaded, none, AT);
      assert.equal(valid.appId, 'polls');
    },
  );
});
