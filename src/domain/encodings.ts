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

/** The URL when the text is an absolute https:// URL, else null. */
export function parseHttpsUrl(text: string): URL | null {
  try {
    const url = new URL(text);
    return url.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}
