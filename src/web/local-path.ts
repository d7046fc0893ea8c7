/** A redirect target on this site: a path starting with one slash, nothing that leaves the host. */
export function localPath(next: string | undefined, fallback = '/'): string {
  if (next === undefined || next.length > 2000) return fallback;
  const hasControl = [...next].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);
  if (!next.startsWith('/') || next.startsWith('//') || next.includes('\\') || hasControl) return fallback;
  return next;
}
