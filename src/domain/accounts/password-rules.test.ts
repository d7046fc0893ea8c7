import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isAppError } from '../../errors.ts';
import { checkNewPassword, namedExports } from './password-rules.ts';

async function refusal(password: string, inputs: string[] = []): Promise<string | null> {
  try {
    await checkNewPassword(password, inputs);
    return null;
  } catch (error) {
    assert.ok(isAppError(error));
    assert.equal(error.code, 'invalid_user');
    assert.ok(error.errors?.password);
    return error.detail;
  }
}

test('short, common and personal passwords are refused with the reason', async () => {
  assert.match((await refusal('Ab1!xyz')) ?? '', /7 characters; use at least 10/);
  assert.match((await refusal('password1234')) ?? '', /too easy to guess/);
  assert.match((await refusal('qwertyuiop12')) ?? '', /too easy to guess/);
  assert.match((await refusal('alicealice2024', ['alice', 'alice@example.com'])) ?? '', /too easy to guess/);
  assert.match((await refusal('x'.repeat(1025))) ?? '', /longer than 1024/);
});

test('long passphrases and random passwords are accepted', async () => {
  assert.equal(await refusal('correct horse battery staple'), null);
  assert.equal(await refusal('kL9#mQ2!vXpw'), null);
  assert.equal(await refusal(`Zq7#kL9!mQ${'a'.repeat(300)}`), null);
});

test('a package loaded as the bundle hands it over (under default) gives the same names; one without the name is refused', () => {
  class Factory {}
  assert.equal(namedExports({ Factory }, 'Factory').Factory, Factory);
  assert.equal(
    namedExports({ default: { Factory } } as unknown as { Factory: typeof Factory }, 'Factory').Factory,
    Factory,
  );
  assert.throws(
    () => namedExports({ default: {} } as unknown as { Factory: typeof Factory }, 'Factory'),
    /no export named Factory/,
  );
});
