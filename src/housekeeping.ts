import type { Container } from './container.ts';
import { runHousekeeping } from './domain/housekeeping.ts';
import { runScheduledSync } from './domain/mirror/scheduled-sync.ts';
import { runNotificationLook } from './domain/notifications/notification-look.ts';
import { isAppError } from './errors.ts';

/** How often a node looks whether the pruning is due (it runs once per interval, by one node). */
const CHECK_MS = 5 * 60_000;
/** The first look comes within this after start, at a random moment: nodes started together do not race. */
const FIRST_CHECK_MAX_MS = 60_000;

/** Starts the server's housekeeping timer; problems are reported and retried at the next look. */
export function startHousekeeping(
  container: Container,
  report: (message: string, error: unknown) => void,
): { stop(): void } {
  let running = false;
  let syncing = false;
  const mirror = container.mirror.deps;
  const syncMinutes = container.config.mirror?.intervalMinutes ?? 0;
  const look = (): void => {
    if (mirror !== null && syncMinutes > 0 && !syncing) {
      syncing = true;
      runScheduledSync(container.housekeeping.store, container.housekeeping.holder, syncMinutes * 60_000, mirror)
        .then((sync) => {
          if (sync === null) return;
          container.metrics.mirrorSync('ok', '');
          report(
            `mirror sync: ${sync.taken} releases taken, ${sync.unchanged} unchanged, ${sync.refused.length} not listed, ${sync.removed} removed`,
            null,
          );
        })
        .catch((error: unknown) => {
          container.metrics.mirrorSync('failed', isAppError(error) ? error.code : 'internal_error');
          report('mirror sync failed: the previous state stays served; tried again after the interval', error);
        })
        .finally(() => {
          syncing = false;
        });
    }
    // Screenshots not copied yet (published on any node, or taken by a mirror sync).
    container.screenshots.kick();
    if (running) return;
    running = true;
    runHousekeeping(container.housekeeping)
      .then(() =>
        runNotificationLook(container.housekeeping.store, container.housekeeping.holder, container.notificationLook),
      )
      .then((look) => {
        if (look !== null && look.expiring + look.majors > 0)
          report(
            `notifications: ${look.expiring} apps' certificates expire within 30 days, ${look.majors} apps lack a release for the new Nextcloud major; their maintainers are mailed`,
            null,
          );
      })
      .catch((error: unknown) => report('housekeeping failed: tried again at the next look', error))
      .finally(() => {
        running = false;
      });
  };
  // The listing part format this node uses is marked at once: its parts are kept from the start.
  container.housekeeping.store
    .markPartFormatInUse(container.housekeeping.partFormat, container.housekeeping.now())
    .catch((error: unknown) => report('marking the listing part format failed: tried again at the next look', error));
  const first = setTimeout(look, Math.random() * FIRST_CHECK_MAX_MS).unref();
  const every = setInterval(look, CHECK_MS).unref();
  return {
    stop() {
      clearTimeout(first);
      clearInterval(every);
    },
  };
}
