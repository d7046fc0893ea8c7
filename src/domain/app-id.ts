import { said } from '../i18n/said.ts';
import type { Said } from '../i18n/said.ts';
/**
 * App ids (contract §1): lower-case letters, digits and underscores, starting with a letter and
 * ending with a letter or digit, at most 32 characters. They name the app in info.xml, in the
 * certificate's CN, in the archive's top folder and in every path of the API.
 */
export const APP_ID_PATTERN = /^[a-z][a-z0-9_]*[a-z0-9]$/;
export const APP_ID_MAX_LENGTH = 32;

/** Null when valid, else why not. */
export function appIdProblem(id: string): Said | null {
  if (id.length > APP_ID_MAX_LENGTH)
    return said`it is ${id.length} characters long; at most ${APP_ID_MAX_LENGTH} are allowed`;
  if (!APP_ID_PATTERN.test(id))
    return said`an app id has lower-case letters a-z, digits and underscores, starts with a letter and ends with a letter or digit`;
  return null;
}
