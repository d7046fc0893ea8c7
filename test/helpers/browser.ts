import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { chromium } from 'playwright-core';

/** Debian's chromium (`apt-get install chromium`; `.ci/run` installs it). */
export const CHROMIUM = process.env['APPSTORE_TEST_CHROMIUM'] ?? '/usr/bin/chromium';

/** Why browser tests skip, or false when the browser is there. */
export const BROWSER_SKIP: string | false = fs.existsSync(CHROMIUM)
  ? false
  : `skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set APPSTORE_TEST_CHROMIUM)`;

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
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

/**
 * axe-core's serious and critical violations on the page the tab is on (all rules, or the ones
 * named), with every violation for the message. axe is injected as a script, which the pages' CSP refuses: the tab's context must
 * bypass it (`newContext({ bypassCSP: true })`).
 */
export async function seriousViolations(
  tab: Page,
  rules?: readonly string[],
): Promise<{ serious: unknown[]; all: string }> {
  await tab.addScriptTag({ path: AXE_SCRIPT });
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
    // Only violations are wanted: axe then skips the details of what passed (much faster).
    return (
      await axe.run({
        resultTypes: ['violations'],
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
