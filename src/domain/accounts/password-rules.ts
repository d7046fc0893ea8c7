import type { ZxcvbnFactory, ZxcvbnResult } from '@zxcvbn-ts/core';
import { AppError } from '../../errors.ts';

export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 1024;
/** zxcvbn's score (0–4) a new password must reach: 3 is "safely unguessable" by an offline attack on a slow hash. */
export const MIN_PASSWORD_SCORE = 3;
/** The strength estimate looks at the first characters only (it is quadratic in places). */
const ESTIMATE_LENGTH = 100;

let estimator: Promise<ZxcvbnFactory> | undefined;
/**
 * Loaded when a password is first checked: its dictionaries are about 30 MB in memory, which a
 * store that nobody signs up to (or a node that only serves listings) never needs.
 */
function strengthEstimator(): Promise<ZxcvbnFactory> {
  estimator ??= (async () => {
    const [{ ZxcvbnFactory }, common, english] = await Promise.all([import('@zxcvbn-ts/core'), import('@zxcvbn-ts/language-common'), import('@zxcvbn-ts/language-en')]);
    return new ZxcvbnFactory({
      dictionary: { ...common.dictionary, ...english.dictionary },
      graphs: common.adjacencyGraphs,
      translations: english.translations,
    });
  })();
  return estimator;
}

function weakness(result: ZxcvbnResult): string {
  const reasons = [result.feedback.warning, ...result.feedback.suggestions].filter((text): text is string => typeof text === 'string' && text !== '');
  return reasons.length === 0 ? 'add more words or characters that are hard to guess' : reasons.join(' ');
}

/**
 * The rules for a password a person chooses on the website (sign-up, change, reset): at least
 * ten characters, and strong enough by zxcvbn's estimate, which knows common passwords, names,
 * keyboard patterns, dates and the user's own name and address. The operator's CLI keeps the
 * plain rules of `manage-users.ts`.
 */
export async function checkNewPassword(password: string, userInputs: readonly string[]): Promise<void> {
  const refuse = (message: string): never => {
    throw new AppError('invalid_user', `Invalid password: ${message}`, { password: [message] });
  };
  if (password.length < MIN_PASSWORD_LENGTH) refuse(`it has ${password.length} characters; use at least ${MIN_PASSWORD_LENGTH}.`);
  if (password.length > MAX_PASSWORD_LENGTH) refuse(`it is longer than ${MAX_PASSWORD_LENGTH} characters.`);
  const inputs = userInputs.flatMap((input) => [input, ...input.split(/[@.+_-]/)]).filter((input) => input.length >= 3);
  const result = await (await strengthEstimator()).check(password.slice(0, ESTIMATE_LENGTH), inputs);
  if (result.score < MIN_PASSWORD_SCORE) refuse(`it is too easy to guess (strength ${result.score} of 4, ${MIN_PASSWORD_SCORE} needed): ${weakness(result)}`);
}
