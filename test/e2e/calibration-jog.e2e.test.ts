/**
 * The calibration wizard end to end on the virtual lab (issue 30, finding 8), in Debian's Chromium
 * on the real core in web mode: the operator jogs the pusher with the jog panel's buttons (short
 * moves of the arm through the control program, as on a real lab) while the table view follows
 * it (issue 45, finding 4), is asked before a jog whose path crosses the object, captures it at each point,
 * sees a repeated point warned of and a fit above the residual limit with Save off and the
 * reason, removes the bad pair, fits within the limit and saves into the lab's setup.
 * The table points typed in are where the lab's motion capture places the pusher through the
 * virtual lab's own setup (its calibration is right, so a correct capture agrees with it to the
 * marker noise): what a tape measure gives on a real table.
 */
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebServer } from '../../src-main/console/web-server';
import { haveChromium, screenshotsDir as shots } from '../helpers/chromium';
import {
  capturePair,
  openConsoleInChromium,
  pusherAtRest as settled,
  type ConsoleInChromium,
} from '../helpers/e2e-console';

describe.skipIf(!haveChromium)('calibration wizard with jog (Chromium, real core, virtual lab)', () => {
  let e2e: ConsoleInChromium;
  let server: WebServer;
  let page: Page;
  /** The pusher where the lab's motion capture places it now: table frame, m. */
  const pusherNow = (): [number, number] | null => {
    const pose = e2e.lab.virtualLab.current()?.poses()?.pusher.pose;
    return pose ? [pose.x, pose.y] : null;
  };

  beforeAll(async () => {
    e2e = await openConsoleInChromium({ width: 1280, height: 800 });
    ({ server, page } = e2e);
    await page.goto(server.url);
  });

  afterAll(async () => {
    await e2e?.close();
  });

  /** The pusher where it stands, once it has settled (the virtual pusher trails the tool). */
  const pusherAtRest = (): Promise<[number, number]> => settled(page, pusherNow);

  it('jogs, warns of a repeated point, keeps Save off above the limit, fits within it and saves', async () => {
    await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Setup' }).click();
    const wizard = page.getByRole('region', { name: 'Calibration wizard' });
    const jogPanel = page.getByRole('group', { name: 'Jog the pusher' });
    const canvas = page.getByTestId('live-canvas');
    await expect
      .poll(() => wizard.textContent(), { timeout: 30_000 })
      .toMatch(/Setup \S+ on the virtual lab/);
    const pairs = wizard.getByRole('table', { name: 'Calibration pairs' });
    const rows = pairs.locator('tbody tr[data-worst]');
    const save = wizard.getByRole('button', { name: 'Save to setup' });
    const fit = wizard.getByRole('button', { name: 'Fit', exact: true });
    const residual = wizard.getByTestId('calibration-residual');
    await wizard.getByLabel('Fit kind').selectOption('2d');

    const captureAt = (p: readonly [number, number]) => capturePair(wizard, p);
    const jog = async (button: Locator) => {
      const before = await pusherAtRest();
      const jogged = page.getByLabel('Event log').locator('li', { hasText: 'jogged the tool' });
      const n = await jogged.count();
      await button.click();
      // The jog is done (the arm has stopped) when the log says how far it went.
      const done = async () =>
        (await jogged.count()) === n + 1
          ? 'jogged'
          : [
              ...(await jogPanel.getByRole('alert').allTextContents()),
              ...(await jogPanel.getByRole('alertdialog').allTextContents()),
            ].join(' ') || 'jogging';
      await expect.poll(done, { timeout: 30_000 }).toBe('jogged');
      const after = await pusherAtRest();
      // The pusher went the step (25 mm), give or take the jog's stopping.
      expect(Math.hypot(after[0] - before[0], after[1] - before[1]) * 1000).toBeGreaterThan(22);
      expect(Math.hypot(after[0] - before[0], after[1] - before[1]) * 1000).toBeLessThan(30);
      // Between runs the table view follows the lab: it draws the pusher where it now is.
      await expect
        .poll(async () => {
          const [x, y] = ((await canvas.getAttribute('data-pusher-mm')) ?? 'NaN,NaN').split(',').map(Number);
          return Math.hypot(x! - after[0] * 1000, y! - after[1] * 1000);
        })
        .toBeLessThan(1.5);
      return after;
    };

    await jogPanel.getByLabel('Jog step (mm)').selectOption('25');
    const p0 = await pusherAtRest();
    await captureAt(p0);
    // Captured again without moving the pusher, at another table point: the wizard warns.
    await captureAt([p0[0] + 0.05, p0[1]]);
    await expect
      .poll(() => wizard.getByTestId('calibration-repeated').textContent())
      .toContain('pairs 1 and 2 measured the same place');
    await wizard.getByRole('button', { name: 'Remove pair 2' }).click();
    await expect.poll(() => rows.count()).toBe(1);
    expect(await wizard.getByTestId('calibration-repeated').count()).toBe(0);

    // Three more points, each jogged to with the jog panel's buttons, round the object: the pusher
    // starts at (-300, 0) mm, 29 mm from the object's edge, and +x first would push it.
    const p1 = await jog(jogPanel.getByRole('button', { name: 'Jog −x' }));
    await captureAt(p1);
    const p2 = await jog(jogPanel.getByRole('button', { name: 'Jog +y' }));
    await captureAt(p2);
    const p3 = await jog(jogPanel.getByRole('button', { name: 'Jog +x' }));
    // 50 mm towards +x from here sweeps the pusher into the object (at (-220, 0) mm, radius 51 mm):
    // the console asks first, and on Cancel nothing moves.
    await jogPanel.getByLabel('Jog step (mm)').selectOption('50');
    await jogPanel.getByRole('button', { name: 'Jog +x' }).click();
    const ask = jogPanel.getByRole('alertdialog', { name: 'Confirm the jog' });
    await expect
      .poll(() => ask.textContent())
      .toMatch(/crosses object object: the pusher \(15 mm radius\) would push/);
    expect(await jogPanel.getByRole('button', { name: 'Jog +x' }).isDisabled()).toBe(true);
    await page.screenshot({ path: path.join(shots, 'calibration-jog-confirm.png') });
    await ask.getByRole('button', { name: 'Cancel' }).click();
    expect(await ask.count()).toBe(0);
    const still = await pusherAtRest();
    expect(Math.hypot(still[0] - p3[0], still[1] - p3[1])).toBeLessThan(0.0005);
    // A wrong table point (50 mm off) for the last capture: the fit is far off.
    await captureAt([p3[0] + 0.05, p3[1]]);
    expect(await wizard.getByTestId('calibration-repeated').count()).toBe(0);
    await fit.click();
    await expect.poll(() => residual.textContent()).toContain('above the limit: Save is off');
    expect(await save.isDisabled()).toBe(true);
    expect(await pairs.locator('tbody tr[data-worst="true"] td').first().textContent()).toBe('4');
    await page.screenshot({ path: path.join(shots, 'calibration-jog-above-limit.png') });

    // The bad pair removed and captured right, the fit is within the limit and Save is on.
    await wizard.getByRole('button', { name: 'Remove pair 4' }).click();
    await captureAt(p3);
    await fit.click();
    await expect.poll(() => residual.textContent()).toContain('within the limit');
    expect(await save.isEnabled()).toBe(true);
    await save.click();
    await expect
      .poll(() => wizard.getByTestId('calibration-saved').textContent())
      .toMatch(/^Saved to .*setup\.json/);
    const log = page.getByLabel('Event log');
    expect(await log.textContent()).toMatch(/jogged the tool 2\d\.\d mm towards \(25, 0\) mm/);
    expect(await log.textContent()).toMatch(/motion capture -> table calibration saved to/);
    await page.screenshot({ path: path.join(shots, 'calibration-jog-saved.png') });
  }, 240_000);
});
