import type { Container } from './container.ts';
import { runHousekeeping } from './domain/housekeeping.ts';

/** How often a node looks whether the pruning is due (it runs once per interval, by one node). */
const CHECK_MS = 5 * 60_000;
/** The first look comes within this after start, at a random moment: nodes started together do not race. */
const FIRST_CHECK_MAX_MS = 60_000;

/** Starts the server's housekeeping timer; problems are reported and retried at the next look. */
export function startHousekeeping(container: Container, report: (message: string, error: unknown) => void): { stop(): void } {
  let running = false;
  const look = (): void => {
    if (running) return;
    running = true;
    runHousekeeping(container.housekeeping)
      .catch((error: unknown) => report('housekeeping failed: tried again at the next look', error))
      .finally(() => {
        running = false;
      });
  };
  // The listing part format this node uses is marked at once: its parts are kept from the start.
  container.housekeeping.store.markPartFormatInUse(container.housekeeping.partFormat, container.housekeeping.now()).catch((error: unknown) => report('marking the listing part format failed: tried again at the next look', error));
  const first = setTimeout(look, Math.random() * FIRST_CHECK_MAX_MS).unref();
  const every = setInterval(look, CHECK_MS).unref();
  return {
    stop() {
      clearTimeout(first);
      clearInterval(every);
    },
  };
}
