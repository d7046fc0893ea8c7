import { said } from '../i18n/said.ts';
import type { Said } from '../i18n/said.ts';

/** "release" or "nightly release", said so that a refusal naming a release translates. */
export function releaseKind(nightly: boolean): Said {
  return nightly ? said`nightly release` : said`release`;
}
