/**
 * Wraps a read so that callers arriving while one is in flight share its result instead of
 * starting another: under load, one version query serves every concurrent listing request.
 */
export function coalesce<T>(read: () => Promise<T>): () => Promise<T> {
  let inFlight: Promise<T> | undefined;
  return () => {
    inFlight ??= read().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };
}
