import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { pemBlocks, scanPem } from './x509.ts';

const block = (label: string, body: string): string => `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----`;

describe('pemBlocks', () => {
  test('finds every block of the label, in order, ignoring other labels and text around them', () => {
    const text = `junk\n${block('CERTIFICATE', 'AAAA')}\n${block('X509 CRL', 'BBBB')}\ntext\n${block('CERTIFICATE', 'CCCC')}\n`;
    assert.deepEqual(pemBlocks(text, 'CERTIFICATE'), [block('CERTIFICATE', 'AAAA'), block('CERTIFICATE', 'CCCC')]);
    assert.deepEqual(pemBlocks(text, 'X509 CRL'), [block('X509 CRL', 'BBBB')]);
  });

  test('a label pattern matches its END line to the BEGIN line it found', () => {
    const text = `${block('RSA PRIVATE KEY', 'AAAA')}\n${block('PRIVATE KEY', 'BBBB')}`;
    assert.equal(pemBlocks(text, '(?:RSA |EC )?PRIVATE KEY').length, 2);
    assert.deepEqual(
      pemBlocks('-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----', '(?:RSA )?PRIVATE KEY'),
      [],
    );
  });

  test('thousands of BEGIN lines without an END: none found, in one pass', () => {
    const hostile = '-----BEGIN CERTIFICATE-----\n'.repeat(200_000);
    assert.deepEqual(pemBlocks(hostile, 'CERTIFICATE'), []);
    assert.deepEqual(pemBlocks(`${hostile}${block('CERTIFICATE', 'AAAA')}`, 'CERTIFICATE').length, 1);
  });
});

describe('scanPem', () => {
  test('tells a text cut inside a block from a complete one', () => {
    const whole = `${block('X509 CRL', 'AAAA')}\n${block('X509 CRL', 'BBBB')}\n`;
    assert.deepEqual(scanPem(whole, 'X509 CRL'), {
      blocks: [block('X509 CRL', 'AAAA'), block('X509 CRL', 'BBBB')],
      unterminated: false,
    });
    const cut = whole.slice(0, whole.length - 20);
    assert.deepEqual(scanPem(cut, 'X509 CRL'), { blocks: [block('X509 CRL', 'AAAA')], unterminated: true });
    assert.deepEqual(scanPem('no pem at all', 'X509 CRL'), { blocks: [], unterminated: false });
  });
});
