import { said } from '../../i18n/said.ts';
import { timingSafeEqual } from 'node:crypto';
import { AppError } from '../../errors.ts';
import type { SecretKeys } from './secret-key.ts';
import { hmacHex } from './token-codec.ts';

/**
 * CSRF protection for the website's forms: every form carries a token in a hidden field, and
 * the server recomputes it. The token is a keyed hash of something only this browser holds: its
 * session id when signed in, else a random id in an HttpOnly cookie of its own. Another site can
 * make the browser send the cookie, but cannot read the page, so it cannot know the token.
 */
export function formToken(keys: Pick<SecretKeys, 'session'>, browserSecret: string): string {
  return hmacHex(keys.session, `form ${browserSecret}`);
}

export const CSRF_FIELD = 'csrf_token';

export function checkFormToken(
  keys: Pick<SecretKeys, 'session'>,
  browserSecret: string | undefined,
  provided: unknown,
): void {
  const expected =
    browserSecret === undefined || browserSecret === '' ? null : Buffer.from(formToken(keys, browserSecret));
  const actual = typeof provided === 'string' ? Buffer.from(provided) : null;
  if (expected === null || actual === null || actual.length !== expected.length || !timingSafeEqual(expected, actual)) {
    throw new AppError(
      'csrf_failed',
      said`This form has expired or did not come from this site (its security token is missing or wrong). Reload the page and send it again.`,
    );
  }
}
