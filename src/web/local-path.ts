/**
 * A redirect target on this site: a path starting with one slash, nothing that leaves the host.
 * What a header cannot carry (characters outside printable ASCII: `Location` is Latin-1 at
 * most, and Node refuses the rest) is percent-encoded as UTF-8, as a browser encodes a typed URL;
 * `%` sequences already there are kept.
 */
export function localPath(next: string | undefined, fallback = '/'): string {
  if (next === undefined || next.length > 2000) return fallback;
  const hasControl = [...next].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);
  if (!next.startsWith('/') || next.startsWith('//') || next.includes('\\') || hasControl) return fallback;
  return next.replace(/[^\x21-\x7e]+/gu, encodeOrDrop) || fallback;
}

/** UTF-8 percent-encoding; a lone surrogate has none and is dropped. */
function encodeOrDrop(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return '';
  }
}
