/**
 * Runs `check` until it passes or `withinMs` has passed since the call, then throws its last
 * error: for what another process's write makes visible within a bounded delay (the content
 * version feed polls SQLite every 500 ms; PostgreSQL notifies at once).
 */
export async function eventually<T>(check: () => Promise<T>, withinMs = 1000): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}
