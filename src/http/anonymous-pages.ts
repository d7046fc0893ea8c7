import type { Html } from '../web/html.ts';
import type { PageSetting } from './page-context.ts';

/** Pages kept per catalogue: addresses and languages seen (the oldest is made again). */
const KEPT_PER_CATALOGUE = 64;

interface Kept {
  readonly page: Html;
  readonly minute: number;
  readonly screenshots: object;
}

/**
 * Pages that every anonymous visitor with the same languages sees alike (the home page), made
 * once per catalogue (a content version and day), screenshot copies, minute (the cards say "3
 * days ago"), address and languages instead of at every view: under load, a view then allocates
 * almost nothing but its answer (issue 55: the pauses in the 99th percentile were collections of
 * what renders allocated). A signed-in visitor's page names them and is always made.
 * `build` may use nothing else of the request than what the key holds: the page's address, the
 * visitor's languages, and no form token (an anonymous form token is the browser's own).
 */
export class AnonymousPages {
  private readonly byCatalogue = new WeakMap<object, Map<string, Kept>>();

  page(setting: PageSetting, build: () => Html): Html {
    if (setting.context.account !== null) return build();
    const minute = Math.floor(setting.display.cards.now.getTime() / 60_000);
    const key = `${setting.context.path}\n${setting.context.languages.join(',')}`;
    let kept = this.byCatalogue.get(setting.catalog);
    if (kept === undefined) this.byCatalogue.set(setting.catalog, (kept = new Map()));
    const known = kept.get(key);
    if (known !== undefined && known.minute === minute && known.screenshots === setting.screenshotCopies)
      return known.page;
    const page = build();
    kept.delete(key);
    if (kept.size >= KEPT_PER_CATALOGUE) kept.delete(kept.keys().next().value ?? '');
    kept.set(key, { page, minute, screenshots: setting.screenshotCopies });
    return page;
  }
}
