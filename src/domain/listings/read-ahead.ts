/**
 * The batches of `ids`, `size` at a time, each with what `read` gave for it. The next batch's read
 * is started before this one is handed out, so the caller's work on a batch overlaps the next
 * read (on PostgreSQL the server sends it meanwhile; issue 55). A read's failure is thrown when
 * its batch is reached; a caller that stops early leaves at most one read running, whose failure
 * is then ignored.
 */
export async function* readAhead<T>(
  ids: readonly string[],
  size: number,
  read: (batch: string[]) => Promise<T>,
): AsyncGenerator<{ batch: string[]; rows: T }> {
  const start = (at: number): { batch: string[]; reading: Promise<T> } | null => {
    if (at >= ids.length) return null;
    const batch = ids.slice(at, at + size);
    const reading = read(batch);
    reading.catch(() => undefined); // heard when its batch is reached
    return { batch, reading };
  };
  let next = start(0);
  for (let at = 0; next !== null; at += size) {
    const { batch, reading } = next;
    const rows = await reading;
    next = start(at + size);
    yield { batch, rows };
  }
}
