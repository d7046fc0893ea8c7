/**
 * Runs `check` until it passes, and returns what it returns: for what happens in the background
 * (another process's write made visible, a compression made after the answer). There is no
 * deadline of its own (a loaded machine is slow, not wrong): the test runner's timeout
 * (scripts/run-tests.mjs) ends a wait that never succeeds. While it waits, the last failure is
 * printed every 10 s, so a wait ended by that timeout says what it was waiting for.
 */
export async function eventually<T>(check: () => Promise<T>): Promise<T> {
  let reported = Date.now();
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() - reported >= 10_000) {
        reported = Date.now();
        console.error(`still waiting: ${error instanceof Error ? error.message : String(error)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}
