/**
 * Commissioning in the Setup view (issue 46), in Debian's Chromium: the console started with a lab
 * file against a virtual lab as untidy as a real one's first day (the speed slider at 50 %, Motive
 * streaming Z-up to a setup written Y-up, RTDE inputs still held for 8 s by a session a pulled
 * cable cut off). Connect says what it waits for while it waits, then connects; the Setup view
 * shows the network interface motion capture is heard on and each red check with its fix. Nothing
 * moves. Screenshots: docs/screenshots/commissioning-*.png (PARAPUSH_UPDATE_DOCS=1 writes them
 * there; otherwise test-artifacts/screenshots), shown in docs/commissioning.md.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SPEED_SLIDER_FIX } from '../../src-main/safety/controller-checks';
import { UP_AXIS_FIX } from '../../src-main/mocap/streamed-axes';
import type { VirtualLab } from '../../src-main/virtual-lab/virtual-lab';
import { haveChromium } from '../helpers/chromium';
import { docShot, openConsoleOnLab, type ConsoleInChromium, type ConsoleOnLab } from '../helpers/e2e-console';
import { pullCableOnPreviousSession, startVirtualLab, speedCommands } from '../helpers/virtual-lab';
import { repoRoot } from '../helpers/scenes';

describe.skipIf(!haveChromium)('commissioning in the Setup view (an untidy lab, --lab)', () => {
  let env: ConsoleOnLab<VirtualLab> | undefined;
  let lab: VirtualLab;
  let e2e: ConsoleInChromium;
  let page: Page;
  let twists: unknown[];
  const shot = (name: string) => docShot(page, name);

  beforeAll(async () => {
    env = await openConsoleOnLab({
      prefix: 'parapush-commissioning-',
      startLab: async (dir) => {
        const untidy = await startVirtualLab({
          scene: path.join(repoRoot, 'test/fixtures/lab-short-scene.json'),
          mocap: { multicast: false, streaming: { upAxis: 'z' } },
          // Held 8 s: connecting reaches RTDE a few seconds after Connect on a loaded machine (the
          // safety thread starts first), and the wait must still be on then to be seen.
          robot: { unlockDelay: 0.3, speedSlider: 0.5, rtdeHalfOpenHold: 8 },
        });
        twists = speedCommands((f) => untidy.ur.rtde.on('input', f));
        // The lab's setup, written (and calibrated) for Y-up: Motive has since been set to Z-up.
        const setupFile = untidy.writeSetup(path.join(dir, '127.0.0.1.json'));
        const setup = JSON.parse(readFileSync(setupFile, 'utf8'));
        setup.mocap.upAxis = 'y';
        writeFileSync(setupFile, JSON.stringify(setup));
        return untidy;
      },
    });
    ({ lab, e2e } = env);
    page = e2e.page;
  }, 120_000);

  afterAll(() => env?.close());

  it('Connect names RTDE inputs held by a previous session while it waits, then connects', async () => {
    // A previous console's robot link owned the command inputs; then its cable was pulled.
    await pullCableOnPreviousSession(lab);

    await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Setup' }).click();
    const connect = page.getByTestId('lab-connect');
    await expect.poll(() => connect.textContent(), { timeout: 10_000 }).toContain('Not connected');
    await connect.getByRole('button', { name: 'Connect', exact: true }).click();
    const notice = page.getByTestId('lab-connect-notice');
    await expect
      .poll(async () => ((await notice.count()) > 0 ? notice.textContent({ timeout: 1000 }) : null), {
        timeout: 10_000,
        interval: 100,
      })
      .toContain('RTDE inputs held by a previous session; retrying for up to 10 s');
    await shot('commissioning-1-rtde-in-use.png');
    await expect.poll(() => connect.getAttribute('data-connected'), { timeout: 20_000 }).toBe('true');
    expect(await notice.count()).toBe(0);
  });

  it('shows the mocap interface and each red check with its fix; nothing moves', async () => {
    await expect
      .poll(
        () =>
          page
            .getByTestId('mocap-interface')
            .textContent()
            .catch(() => null),
        { timeout: 10_000 },
      )
      .toMatch(/^Motion capture heard on lo \(127\.0\.0\.1\/\d+\), the route to Motive at 127\.0\.0\.1\.$/);
    const fixes = page.getByTestId('check-fix');
    const fixTexts = () => fixes.allTextContents().then((t) => t.map((s) => s.replace(/^Fix: /, '')));
    await expect
      .poll(fixTexts, { timeout: 15_000 })
      .toEqual(expect.arrayContaining([SPEED_SLIDER_FIX, UP_AXIS_FIX('y')]));
    const checklist = page.getByRole('table', { name: 'Pre-flight checklist' });
    const row = (label: string) => checklist.getByRole('row').filter({ hasText: label });
    expect(await row('Speed slider at 100 %').getAttribute('data-result')).toBe('fail');
    expect(await row("Motive's up axis and units as the setup's").textContent()).toContain(
      'Motive streams Z-up',
    );
    expect(
      await row('Motion capture heard on the interface of the route to Motive').getAttribute('data-result'),
    ).toBe('ok');
    await row("Motive's up axis and units as the setup's").scrollIntoViewIfNeeded();
    await shot('commissioning-2-motive-up-axis.png');
    await row('Speed slider at 100 %').scrollIntoViewIfNeeded();
    await shot('commissioning-3-speed-slider.png');
    expect(twists).toHaveLength(0);
  });
});
