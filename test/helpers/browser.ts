import fs from 'node:fs';
import type { Browser } from 'playwright-core';
import { chromium } from 'playwright-core';

/** Debian's chromium (`apt-get install chromium`; `.ci/run` installs it). */
export const CHROMIUM = process.env['APPSTORE_TEST_CHROMIUM'] ?? '/usr/bin/chromium';

/** Why browser tests skip, or false when the browser is there. */
export const BROWSER_SKIP: string | false = fs.existsSync(CHROMIUM) ? false : `skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set APPSTORE_TEST_CHROMIUM)`;

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
}
