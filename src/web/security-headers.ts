/**
 * The headers of every HTML page: a strict Content-Security-Policy (scripts and styles only from
 * the store itself, never inline; images only from the store, which copies screenshots (issue 54);
 * no framing; forms post only to the store), and the referrer and opener policies.
 * Written here rather than through a plugin so that the API's hot paths carry no extra hooks.
 */
export const PAGE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'strict-origin-when-cross-origin',
  'cross-origin-opener-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=()',
};

/** Over HTTPS, browsers are told to keep using it (180 days). */
export function pageSecurityHeaders(overHttps: boolean): Record<string, string> {
  return overHttps
    ? { ...PAGE_SECURITY_HEADERS, 'strict-transport-security': 'max-age=15552000' }
    : { ...PAGE_SECURITY_HEADERS };
}
