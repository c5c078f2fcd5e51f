/**
 * A recorded session's plots, checked pixel by pixel against their reference image (issue 15):
 * a committed session log (test/fixtures/sessions/, an isrr-obstacle run of Parareal K = 2 that
 * `parapush experiment --sessions` recorded) is opened in the Sessions view and played to its end;
 * the plot column then shows every recorded step, and must look as test/e2e/reference/ says.
 * The log is fixed, so what is drawn is too: its planning times are the ones recorded, not this
 * machine's. PARAPUSH_UPDATE_REFERENCES=1 rewrites the reference (test/helpers/reference-images.ts).
 */
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haveChromium, screenshotsDir } from '../helpers/chromium';
import { openConsoleInChromium, type ConsoleInChromium } from '../helpers/e2e-console';
import { checkAgainstReference } from '../helpers/reference-images';

const fixtures = path.resolve('test/fixtures/sessions');

describe.skipIf(!haveChromium)("a recorded session's plots", () => {
  let e2e: ConsoleInChromium;
  let page: Page;

  beforeAll(async () => {
    // Tall enough that the plot column shows all four charts without scrolling.
    e2e = await openConsoleInChromium({ width: 1600, height: 1400 });
    page = e2e.page;
    const sessions = path.join(e2e.root, 'sessions');
    mkdirSync(sessions, { recursive: true });
    for (const f of readdirSync(fixtures).filter((n) => n.endsWith('.mcap')))
      copyFileSync(path.join(fixtures, f), path.join(sessions, f));
  });

  afterAll(async () => {
    await e2e?.close();
  });

  it('plays a recorded experiment run to its end and draws its plots as the reference image shows', async () => {
    await page.goto(e2e.server.url);
    await page.getByRole('navigation').getByRole('button', { name: 'Sessions' }).click();
    const session = page
      .getByRole('list', { name: 'Recorded sessions' })
      .getByRole('listitem')
      .filter({ hasText: 'isrr-obstacle' });
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'Refresh' }).click();
          return session.count();
        },
        { timeout: 30_000 },
      )
      .toBe(1);
    await session.getByRole('button', { name: /Open session/ }).click();
    await expect.poll(() => page.getByTestId('playback-mode').textContent()).toContain('PLAYBACK, NOT LIVE');
    await page.getByRole('button', { name: '10×' }).click();
    await page.getByRole('button', { name: /Play/ }).click();
    await expect
      .poll(() => page.getByTestId('playback-mode').textContent(), { timeout: 60_000 })
      .toContain('ended');
    // Every chart has data: none says it is empty.
    await expect.poll(() => page.locator('section.plot .empty').count()).toBe(0);
    const plots = await page
      .getByLabel('Plots')
      .screenshot({ path: path.join(screenshotsDir, 'session-plots.png') });
    const check = checkAgainstReference('session-plots-after-playback', plots);
    expect(check.problem).toBeNull();
  });
});
