import { said } from '../../../i18n/said.ts';
import { AppError } from '../../../errors.ts';

/** The browser's passkey answer, as the page's script put it in the form's `response` field (JSON). */
export function parsedAnswer(text: string): unknown {
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value === 'object' && value !== null) return value;
  } catch {
    // said below
  }
  throw new AppError(
    'invalid_request',
    said`The passkey answer is missing: use the button, which asks the browser for it.`,
    {
      response: [said`the browser’s passkey answer`],
    },
  );
}
