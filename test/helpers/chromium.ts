/** Debian's Chromium as the end-to-end tests launch it, and where their screenshots go. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { LaunchOptions } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`e2e skipped: ${CHROMIUM} is absent (apt-get install -y chromium)`);

/** Where every e2e screenshot goes, for a look by eye (not committed). */
export const screenshotsDir = path.resolve('test-artifacts/screenshots');
/** The README's and the docs' screenshots: refreshed only with PARAPUSH_UPDATE_DOCS=1. */
export const docScreenshotsDir = path.resolve('docs/screenshots');
export const updateDocs = process.env.PARAPUSH_UPDATE_DOCS === '1';

/** Headless Chromium without the background traffic of a desktop profile. */
export const chromiumOptions: LaunchOptions = {
  executablePath: CHROMIUM,
  headless: true,
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
  ],
};
