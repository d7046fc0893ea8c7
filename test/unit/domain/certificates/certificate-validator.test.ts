import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError } from '../../../../src/errors.ts';
import { readCert } from '../../../helpers/certificate-fixtures.ts';
import type { RevocationLookup } from '../../../../src/domain/certificates/certificate-validator.ts';
import { validateCertificate } from '../../../../src/domain/certificates/certificate-validator.ts';
import { decodeSignature, isValidSignature } from '../../../../src/domain/certificates/signature.ts';
import { loadTrust } from '../../../../src/domain/certificates/trust.ts';

const NOW = new Date('2026-06-01T00:00:00Z');
const none: RevocationLookup = { findRevocation: async () => null };

async function trustWith(crls: string[] = [], warnings: string[] = []) {
  return loadTrust(readCert('chain.pem'), crls.length === 0 ? null : crls.map(readCert).join('\n'), NOW, (w) =>
    warnings.push(w),
  );
}

async function refusal(
  pem: string,
  code: string,
  detail: RegExp,
  crls: string[] = [],
  own: RevocationLookup = none,
): Promise<void> {
  const trust = await trustWith(crls);
  await assert.rejects(validateCertificate(pem, trust, own, NOW), (error: unknown) => {
    assert.ok(error instanceof AppError, String(error));
    assert.equal(error.code, code);
    assert.match(error.detail, detail);
    return true;
  });
}

describe('validateCertificate', () => {
  test('a valid certificate: its CN is the app id', async () => {
    const valid = await validateCertificate(readCert('news.crt'), await trustWith(['revoking.crl']), none, NOW);
    assert.equal(valid.appId, 'news');
    assert.equal(valid.serial, '1000');
  });

  test('CR LF line ends and outer whitespace are fine', async () => {
    const pem = `\n\n${readCert('news.crt').replace(/\n/g, '\r\n')}  \n`;
    assert.equal((await validateCertificate(pem, await trustWith(), none, NOW)).appId, 'news');
  });

  test('not a certificate / two certificates / a private key', async () => {
    await refusal('hello', 'invalid_certificate', /not a PEM certificate/);
    await refusal(
      '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----',
      'invalid_certificate',
      /could not be read/,
    );
    await refusal(readCert('two-certificates.pem'), 'invalid_certificate', /Expected one certificate, found 2/);
    await refusal(readCert('news.key') + readCert('news.crt'), 'invalid_certificate', /private key/);
  });

  test('signed by another authority', async () => {
    await refusal(
      readCert('news-other-authority.crt'),
      'certificate_untrusted',
      /not signed by this store's authority \(it names CN=Some Other Authority as issuer\)/,
    );
  });

  test('expired and not yet valid', async () => {
    await refusal(readCert('news-expired.crt'), 'certificate_expired', /^The certificate expired on 2016-01-01/);
    await refusal(readCert('news-not-yet-valid.crt'), 'certificate_not_yet_valid', /not valid before 2040-01-01/);
  });

  test('revoked by a CRL; a stale CRL still counts; an empty one revokes nothing', async () => {
    await refusal(
      readCert('mail-revoked.crt'),
      'certificate_revoked',
      /^The certificate was revoked on \d{4}-\d\d-\d\d \(serial 1003\)/,
      ['revoking.crl'],
    );
    await refusal(readCert('mail-revoked.crt'), 'certificate_revoked', /revoked/, ['stale.crl']);
    const valid = await validateCertificate(readCert('mail-revoked.crt'), await trustWith(['empty.crl']), none, NOW);
    assert.equal(valid.appId, 'mail');
  });

  test("a CRL signed by another authority is refused with the file, not skipped (it lists news.crt's serial)", async () => {
    await assert.rejects(
      trustWith(['other-authority.crl']),
      /CRL #1 of the revocation list file \(APPSTORE_CRL\) \(issuer CN=Some Other Authority\) is not signed by a configured authority/,
    );
  });

  test('a stale CRL is applied with a warning', async () => {
    const warnings: string[] = [];
    const trust = await trustWith(['stale.crl'], warnings);
    assert.equal(trust.revocationLists.length, 1);
    assert.match(warnings[0] ?? '', /past its next update \(2020-01-01.*still applied/);
  });

  test('revoked by the store itself', async () => {
    const own: RevocationLookup = {
      findRevocation: async (_issuer, serial) =>
        serial === '1000' ? { revokedAt: new Date('2026-05-05T00:00:00Z') } : null,
    };
    await refusal(readCert('news.crt'), 'certificate_revoked', /revoked on 2026-05-05 by this store/, [], own);
  });

  test('CNs that are not app ids', async () => {
    await refusal(
      readCert('bad-cn.crt'),
      'invalid_app_id',
      /^CN 'My-App' is not a valid app id: an app id has lower-case letters/,
    );
    await refusal(readCert('slash-cn.crt'), 'invalid_app_id', /^CN '\/news' is not a valid app id/);
    await refusal(readCert('long-cn.crt'), 'invalid_app_id', /is 33 characters long; at most 32/);
  });
});

describe('signatures', () => {
  const newsKey = async () => (await validateCertificate(readCert('news.crt'), await trustWith(), none, NOW)).publicKey;
  const verify = async (data: string, file: string) =>
    isValidSignature(Buffer.from(data), decodeSignature(readCert(file)), await newsKey());

  test('good, and wrapped at 64 columns by openssl base64', async () => {
    assert.ok(await verify('news', 'news.sig'));
    assert.ok(readCert('news-wrapped.sig').trim().includes('\n'));
    assert.ok(await verify('news', 'news-wrapped.sig'));
  });

  test('spaces inside are ignored; served without whitespace', () => {
    const spaced = readCert('news-wrapped.sig').replace(/\n/g, ' ');
    assert.equal(decodeSignature(spaced).toString('base64'), readCert('news.sig').trim());
  });

  test('bad: another key, another id, random bytes', async () => {
    assert.ok(!(await verify('news', 'news-by-notes-key.sig')));
    assert.ok(!(await verify('news', 'notes-by-news-key.sig')));
    assert.ok(!(await verify('news', 'garbage.sig')));
    assert.ok(!(await verify('news\n', 'news.sig')), 'a trailing newline is another message');
  });

  test('not base64', () => {
    for (const text of ['', '   ', 'not*base64', 'abcde']) {
      assert.throws(
        () => decodeSignature(text),
        (e: unknown) => e instanceof AppError && e.code === 'invalid_signature',
      );
    }
  });
});
