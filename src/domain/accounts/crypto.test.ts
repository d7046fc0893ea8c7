import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { PasswordHasher } from './password-hash.ts';
import { deriveKeys, loadSecret } from './secret-key.ts';
import { decryptToken, encryptToken, generateToken, tokenLookupHash } from './token-codec.ts';

describe('password hashing', () => {
  test('scrypt hashes verify the right password only; salts differ; the default cost is 2^15', async () => {
    const hasher = new PasswordHasher();
    const a = await hasher.hash('s3cret ü');
    const b = await hasher.hash('s3cret ü');
    assert.match(a, /^scrypt\$32768\$8\$1\$/);
    assert.notEqual(a, b);
    assert.ok(await hasher.verify('s3cret ü', a));
    assert.ok(!(await hasher.verify('s3cret u', a)));
    assert.ok(!(await hasher.verify('s3cret ü', 'garbage')));
    assert.ok(!(await hasher.verify('x', 'scrypt$x$y$z$a$b')));
  });

  test('another cost: its hashes name it; a hash made at another cost still verifies', async () => {
    const cheap = new PasswordHasher(10);
    const hash = await cheap.hash('s3cret');
    assert.match(hash, /^scrypt\$1024\$8\$1\$/);
    assert.ok(await new PasswordHasher().verify('s3cret', hash));
    assert.ok(await cheap.verify('s3cret', await new PasswordHasher(11).hash('s3cret')));
    assert.match(await cheap.decoyHash(), /^scrypt\$1024\$/, 'the decoy is made at the same cost as new hashes');
    assert.throws(() => new PasswordHasher(9), RangeError);
    assert.throws(() => new PasswordHasher(18), RangeError);
  });
});

describe('tokens', () => {
  const keys = deriveKeys(randomBytes(32));
  test('256 random bits, hex', () => {
    const token = generateToken();
    assert.match(token, /^[0-9a-f]{64}$/);
    assert.notEqual(token, generateToken());
  });

  test('look-up hash is keyed: another key gives another hash', () => {
    const token = generateToken();
    assert.equal(tokenLookupHash(keys, token), tokenLookupHash(keys, token));
    assert.notEqual(tokenLookupHash(keys, token), tokenLookupHash(deriveKeys(randomBytes(32)), token));
  });

  test('encryption round-trips, bound to the user and the key', () => {
    const token = generateToken();
    const sealed = encryptToken(keys, token, 7);
    assert.ok(!sealed.includes(token));
    assert.equal(decryptToken(keys, sealed, 7), token);
    assert.equal(decryptToken(keys, sealed, 8), null, 'another user cannot use it');
    assert.equal(decryptToken(deriveKeys(randomBytes(32)), sealed, 7), null, 'another key cannot open it');
    assert.equal(decryptToken(keys, 'v1.x.y.z', 7), null);
  });
});

describe('secret key file', () => {
  test('created once with mode 0600, then read back; a configured file must exist and be valid', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'appstore-key-'));
    const file = path.join(dir, 'sub', 'secret.key');
    const first = loadSecret(file, true);
    assert.equal(first.length, 32);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    // Written beside it, then linked under its name: nothing else is left there.
    assert.deepEqual(fs.readdirSync(path.dirname(file)), ['secret.key']);
    assert.deepEqual(loadSecret(file, true), first);
    assert.throws(() => loadSecret(path.join(dir, 'missing.key'), false), /does not exist/);
    fs.writeFileSync(path.join(dir, 'short.key'), 'abcd');
    assert.throws(() => loadSecret(path.join(dir, 'short.key'), false), /at least 64 hexadecimal/);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
