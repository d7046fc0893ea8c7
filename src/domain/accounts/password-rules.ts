import { said } from '../../i18n/said.ts';
import type { Said } from '../../i18n/said.ts';
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
    const [core, commonModule, englishModule] = await Promise.all([
      import('@zxcvbn-ts/core'),
      import('@zxcvbn-ts/language-common'),
      import('@zxcvbn-ts/language-en'),
    ]);
    const { ZxcvbnFactory } = namedExports(core, 'ZxcvbnFactory');
    const common = namedExports(commonModule, 'dictionary');
    const english = namedExports(englishModule, 'translations');
    return new ZxcvbnFactory({
      dictionary: { ...common.dictionary, ...english.dictionary },
      graphs: common.adjacencyGraphs,
      translations: english.translations,
    });
  })();
  return estimator;
}

/**
 * A package's exports as loaded by `import()`: Node gives a CommonJS package's names on the
 * namespace, the bundle (esbuild) only under `default`. Refuses a module that has the name in
 * neither place, so a package that changes shape fails loudly instead of checking against nothing.
 */
export function namedExports<T extends object>(namespace: T, name: keyof T & string): T {
  if ((namespace as Record<string, unknown>)[name] !== undefined) return namespace;
  const fallback = (namespace as { default?: unknown }).default;
  if (typeof fallback === 'object' && fallback !== null && (fallback as Record<string, unknown>)[name] !== undefined)
    return fallback as T;
  throw new Error(`the module loaded has no export named ${name}`);
}

function weakness(result: ZxcvbnResult): string {
  const reasons = [result.feedback.warning, ...result.feedback.suggestions].filter(
    (text): text is string => typeof text === 'string' && text !== '',
  );
  return reasons.length === 0 ? 'add more words or characters that are hard to guess' : reasons.join(' ');
}

/**
 * The one rule for every new password, whoever sets it (sign-up, change, reset, invitation, and
 * the operator's `user add` and `user passwd`): at least ten characters, and strong enough by
 * zxcvbn's estimate, which knows common passwords, names, keyboard patterns, dates and the user's
 * own name and address. `waived` is an operator's explicit choice (`--allow-weak-password`): then
 * only the length limits apply, so a password is never empty or unbounded.
 */
export async function checkNewPassword(
  password: string,
  userInputs: readonly string[],
  strength: 'required' | 'waived' = 'required',
): Promise<void> {
  const refuse = (message: Said): never => {
    throw new AppError('invalid_user', said`Invalid password: ${message}`, { password: [message] });
  };
  if (password === '') refuse(said`it is empty.`);
  if (password.length > MAX_PASSWORD_LENGTH) refuse(said`it is longer than ${MAX_PASSWORD_LENGTH} characters.`);
  if (strength === 'waived') return;
  if (password.length < MIN_PASSWORD_LENGTH)
    refuse(said`it has ${password.length} characters; use at least ${MIN_PASSWORD_LENGTH}.`);
  const inputs = userInputs.flatMap((input) => [input, ...input.split(/[@.+_-]/)]).filter((input) => input.length >= 3);
  const result = await (await strengthEstimator()).check(password.slice(0, ESTIMATE_LENGTH), inputs);
  if (result.score < MIN_PASSWORD_SCORE)
    refuse(
      said`it is too easy to guess (strength ${result.score} of 4, ${MIN_PASSWORD_SCORE} needed): ${weakness(result)}`,
    );
}
