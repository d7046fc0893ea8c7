import { said } from '../i18n/said.ts';
import type { Said } from '../i18n/said.ts';
/** Small checks of text that arrives from clients, each rule in one place. */

const BASE64_PATTERN = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * Standard base64 (RFC 4648 §4). `padded`: the length is a multiple of 4 (HTTP Basic
 * credentials); otherwise padding may be left out (some signing tools do), but a length that no
 * byte string encodes to is refused.
 */
export function isBase64(text: string, padded: boolean): boolean {
  if (!BASE64_PATTERN.test(text)) return false;
  return padded ? text.length % 4 === 0 : text.length % 4 !== 1;
}

/** Which schemes an address may have: https only, or http too where the original store takes it (info.xml's links). */
export type WebSchemes = 'https' | 'http or https';

/**
 * The one rule for a web address the store keeps, lists or shows as a link (download URLs,
 * info.xml's links, discover.json, the pages): an absolute URL with a host, https (or http where
 * allowed), no user name or password, nothing a URL parser would quietly drop (spaces, control
 * characters). Null when it holds, else what is wrong, as a phrase.
 */
export function webAddressProblem(text: string, schemes: WebSchemes = 'https'): Said | null {
  const httpsOnly = schemes === 'https';
  if ([...text].some((c) => c <= ' ' || c === '\u007f' || /\s/.test(c)))
    return httpsOnly
      ? said`is not an https:// address: it has spaces or control characters`
      : said`is not an http:// or https:// address: it has spaces or control characters`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return said`is not an absolute URL: use ${httpsOnly ? 'https://…' : 'http(s)://…'}`;
  }
  if (url.protocol !== 'https:' && (httpsOnly || url.protocol !== 'http:')) {
    const given = url.protocol.replace(/:$/, '');
    return httpsOnly
      ? said`must be an https:// address, not ${given}`
      : said`must be an http:// or https:// address, not ${given}`;
  }
  if (url.hostname === '') return said`has no host`;
  if (url.username !== '' || url.password !== '') return said`must not hold a user name or password`;
  return null;
}

/** The URL when the text is a web address by the rule above, else null. */
export function parseWebAddress(text: string, schemes: WebSchemes = 'https'): URL | null {
  return webAddressProblem(text, schemes) === null ? new URL(text) : null;
}
