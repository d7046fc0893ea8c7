import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { chromium } from 'playwright-core';

/** Debian's chromium (`apt-get install chromium`; `.ci/run` installs it). */
export const CHROMIUM = process.env['APPSTORE_TEST_CHROMIUM'] ?? '/usr/bin/chromium';

/** Why browser tests skip, or false when the browser is there. */
export const BROWSER_SKIP: string | false = fs.existsSync(CHROMIUM)
  ? false
  : `skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set APPSTORE_TEST_CHROMIUM)`;

/**
 * Chromium, headless. Its pages share one renderer process: the tests' pages are all of one site,
 * a renderer's start is not what they test, and axe-core (see seriousViolations) is then compiled
 * once for all of them. The sweep of every language (two contexts at a time) took 47 s and 84 s
 * of CPU so, against 58 s and 96 s with a renderer per context.
 */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--renderer-process-limit=1'],
  });
}

/** Fills and sends the sign-in form on the page the tab is on (`/account/login`). */
export async function fillSignIn(tab: Page, username: string, password: string): Promise<void> {
  await tab.getByLabel('Username').fill(username);
  await tab.getByLabel('Password').fill(password);
  await tab.getByRole('button', { name: 'Sign in' }).last().click();
}

const AXE_SCRIPT = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/**
 * The axe-core rules whose outcome a page's words can change: names, labels, titles, alternative
 * texts and languages. Every other rule looks at the markup, the styles and the colours, which are
 * the same in every language: the English pages are checked against all of them.
 */
export const TEXT_RULES: readonly string[] = [
  'area-alt',
  'aria-command-name',
  'aria-dialog-name',
  'aria-input-field-name',
  'aria-meter-name',
  'aria-progressbar-name',
  'aria-toggle-field-name',
  'aria-tooltip-name',
  'aria-treeitem-name',
  'button-name',
  'document-title',
  'empty-heading',
  'empty-table-header',
  'frame-title',
  'html-has-lang',
  'html-lang-valid',
  'html-xml-lang-mismatch',
  'identical-links-same-purpose',
  'image-alt',
  'input-button-name',
  'input-image-alt',
  'label',
  'landmark-unique',
  'link-name',
  'object-alt',
  'role-img-alt',
  'select-name',
  'summary-name',
  'svg-img-alt',
  'table-duplicate-name',
  'target-size',
  'valid-lang',
];

/** The contexts whose pages load axe-core as they load (an init script): see seriousViolations. */
const axeLoaded = new WeakSet<BrowserContext>();

/**
 * axe-core's serious and critical violations on the page the tab is on (all rules, or the ones
 * named), with every violation for the message. axe is injected as a script, which the pages' CSP
 * refuses: the tab's context must bypass it (`newContext({ bypassCSP: true })`).
 *
 * The first check in a context injects axe into the page and has every later page of the context
 * load it as an init script: compiled once per renderer, that cost a page 20 ms of CPU where
 * sending and compiling its 560 KB again cost 60 ms in the renderer, 25 in the browser and 8 in
 * this process (measured on 60 pages).
 */
export async function seriousViolations(
  tab: Page,
  rules?: readonly string[],
): Promise<{ serious: unknown[]; all: string }> {
  const context = tab.context();
  if (!axeLoaded.has(context)) {
    axeLoaded.add(context);
    await context.addInitScript({ path: AXE_SCRIPT });
  }
  if (!(await tab.evaluate(() => 'axe' in globalThis))) await tab.addScriptTag({ path: AXE_SCRIPT });
  const violations = await tab.evaluate(async (only) => {
    const axe = (
      globalThis as unknown as {
        axe: {
          run: (options: object) => Promise<{
            violations: Array<{ id: string; impact: string | null; nodes: unknown[] }>;
          }>;
        };
      }
    ).axe;
    // Only violations are wanted, counted: axe then skips the details of what passed, and the
    // nodes' selectors (a third of a run of the text rules). The CSSOM, which it otherwise fetches
    // for every run, serves one rule (css-orientation-lock).
    return (
      await axe.run({
        resultTypes: ['violations'],
        selectors: false,
        ancestry: false,
        xpath: false,
        preload: only === null || only.includes('css-orientation-lock'),
        ...(only === null ? {} : { runOnly: { type: 'rule', values: only } }),
      })
    ).violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      nodes: v.nodes.length,
    }));
  }, rules ?? null);
  return {
    serious: violations.filter((v) => v.impact === 'serious' || v.impact === 'critical'),
    all: JSON.stringify(violations),
  };
}
