/**
 * The console an operator trusts (issue 30), end to end in Debian's Chromium on the real core in
 * web mode with the in-process virtual lab, as a new operator meets it at 1280 x 800:
 * - the idle Setup view on a healthy virtual lab shows no failure: the pusher check happens at
 *   run start (and says so), the workers are idle, not disconnected (finding 7);
 * - Start real run is off with the reason and how to configure a lab, and a refused real start
 *   records no session (finding 5);
 * - an invalid scene draft keeps Start off with its reason, and the typed value is never
 *   discarded without the operator's word (finding 2);
 * - a session recorded on an edited scene, played back and closed, leaves the live scene exactly
 *   as loaded (finding 1); during playback the status bar shows the recording's outcome, not the
 *   live run's, and a what-if is drawn over the poses of its own step, its legend clear of the
 *   table (finding 4).
 */
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsoleCore } from '../../src-main/console/console-core';
import type { WebServer } from '../../src-main/console/web-server';
import { loadRecordedRun, plannerSteps } from '../../src-main/session/playback';
import { SessionLog } from '../../src-main/session/reader';
import { haveChromium, screenshotsDir as shots } from '../helpers/chromium';
import { openConsoleInChromium, type ConsoleInChromium } from '../helpers/e2e-console';

describe.skipIf(!haveChromium)('a console the operator can trust (Chromium, real core, virtual lab)', () => {
  let e2e: ConsoleInChromium;
  let root: string;
  let server: WebServer;
  let core: ConsoleCore;
  let page: Page;
  /** The shipped scene's goal x, mm. */
  let shippedGoalX = 0;

  const show = async (view: 'Setup' | 'Scene' | 'Planner' | 'Run' | 'Sessions') => {
    await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: view }).click();
    await page.getByRole('heading', { level: 1, name: view }).waitFor();
  };
  const goalX = () => page.getByLabel('Goal x (mm)');
  const typeInto = async (field: ReturnType<typeof goalX>, value: string) => {
    await field.fill(value);
    await field.dispatchEvent('change');
  };
  const phase = () => page.getByTestId('run-phase').textContent();

  beforeAll(async () => {
    e2e = await openConsoleInChromium({ width: 1280, height: 800 });
    ({ root, server, core, page } = e2e);
    // A fast planner and one action per run: these tests are about what the console shows.
    expect(await core.handle({ type: 'settings.preset', preset: 'isrr2019-parareal-1' })).toMatchObject({
      ok: true,
    });
    const settings = { ...core.snapshot().settings, rollouts: 4, maxExecutedActions: 1 };
    expect(await core.handle({ type: 'settings.set', settings })).toMatchObject({ ok: true });
    shippedGoalX = core.snapshot().scene!.goal.center.x * 1000;
    await page.goto(server.url);
  });

  afterAll(async () => {
    await e2e?.close();
  });

  it('shows the idle Setup view of a healthy virtual lab without a failure', async () => {
    await show('Setup');
    const links = page.getByRole('table', { name: 'Connections' });
    await expect
      .poll(() => links.getByRole('row', { name: /OptiTrack/ }).textContent(), { timeout: 30_000 })
      .toMatch(/connected.*frames\/s/);
    const checklist = page.getByRole('table', { name: 'Pre-flight checklist' });
    const pusher = checklist.getByRole('row', { name: /Pusher held/ });
    await expect.poll(() => pusher.textContent()).toContain('AFTER ARM');
    expect(await pusher.textContent()).not.toContain('FAIL');
    expect(await pusher.textContent()).toContain('each run grips the pusher once armed');
    await expect
      .poll(() => page.getByTestId('preflight-summary').textContent(), { timeout: 10_000 })
      .toMatch(/^\s*Ready to arm: 1 check\(s\) are judged after Arm/);
    expect(await links.getByRole('row', { name: /Workers/ }).textContent()).toContain(
      'idle (start with the first run)',
    );
    await page.screenshot({ path: path.join(shots, 'trust-setup-idle.png') });
  });

  it('keeps Start real run off with how to configure a lab, and a refused start records nothing', async () => {
    await show('Run');
    expect(await page.getByRole('button', { name: 'Start real run' }).isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: /Start dry run/ }).isDisabled()).toBe(false);
    const why = await page.getByTestId('real-run-off').textContent();
    expect(why).toContain('No real lab is configured');
    expect(why).toContain('--lab lab.json');
    const refused = await core.handle({ type: 'run.start', mode: 'real' });
    expect(refused).toMatchObject({ ok: false, error: expect.stringContaining('No real lab is configured') });
    expect(core.snapshot().run.phase).toBe('idle');
    expect(await core.handle({ type: 'sessions.list' })).toMatchObject({
      ok: true,
      result: { sessions: [] },
    });
  });

  it('keeps Start off while the scene draft is invalid, and never drops the typed value', async () => {
    await show('Scene');
    await typeInto(goalX(), '5000');
    await expect.poll(() => page.getByLabel('Validation problems').textContent()).toContain('goal');
    await page.getByTestId('scene-draft').waitFor();
    await show('Run');
    const start = page.getByRole('button', { name: /Start dry run/ });
    expect(await start.isDisabled()).toBe(true);
    expect(await page.getByTestId('run-blocked-draft').textContent()).toMatch(
      /^The scene draft is invalid: goal.*Fix it or discard it in the Scene view\.$/,
    );
    await page.screenshot({ path: path.join(shots, 'trust-run-blocked-by-draft.png') });
    // Away and back: the draft is still there, as typed.
    await show('Scene');
    expect(await goalX().inputValue()).toBe('5000');
    // A valid edit (the goal 100 mm further left) is taken, and runs may start again.
    await typeInto(goalX(), String(Math.round(shippedGoalX - 100)));
    await expect.poll(() => page.getByTestId('scene-draft').count()).toBe(0);
    await expect.poll(() => core.snapshot().scene!.goal.center.x * 1000).toBeCloseTo(shippedGoalX - 100, 0);
    expect(await page.locator('.current').textContent()).toContain('unsaved changes');
    await show('Run');
    expect(await start.isDisabled()).toBe(false);
  });

  it('runs the edited scene once to its end and once to an Esc abort', async () => {
    const start = page.getByRole('button', { name: /Start dry run/ });
    await start.click();
    await expect.poll(phase, { timeout: 120_000 }).toMatch(/FINISHED|FAILED|ABORTED/);
    await expect.poll(() => start.isDisabled(), { timeout: 30_000 }).toBe(false);
    // On a loaded machine a run can be stopped at its start (motion capture 100 ms stale): then
    // the abort is tried again, until one is aborted by the operator.
    let aborted = false;
    const ends: string[] = [
      `first run: ${await phase()}: ${await page.getByTestId('run-reason').textContent()}`,
    ];
    for (let attempt = 1; attempt <= 4 && !aborted; attempt++) {
      await expect.poll(() => start.isDisabled(), { timeout: 30_000 }).toBe(false);
      const before = core.snapshot().run.startedAt;
      await start.click();
      await expect.poll(() => core.snapshot().run.startedAt, { timeout: 30_000 }).not.toBe(before);
      await expect.poll(phase, { timeout: 30_000 }).toMatch(/RUNNING|ABORTED|FAILED|FINISHED/);
      await page.keyboard.press('Escape');
      await expect.poll(phase, { timeout: 30_000 }).toMatch(/ABORTED|FAILED|FINISHED/);
      aborted = /ABORTED/.test((await phase()) ?? '');
      ends.push(`${await phase()}: ${await page.getByTestId('run-reason').textContent()}`);
    }
    expect(aborted, ends.join('\n')).toBe(true);
  }, 400_000);

  it("plays back the recording's state only, and closing it leaves the live scene as loaded", async () => {
    // The operator goes back to the shipped scene: Load asks before it drops the unsaved edit.
    await show('Scene');
    await page.getByLabel('Scene file').selectOption('isrr-obstacle.json');
    await page.getByRole('button', { name: 'Load', exact: true }).click();
    await page.getByRole('button', { name: 'Discard and load isrr-obstacle.json' }).click();
    await expect.poll(() => page.locator('.current').textContent()).not.toContain('unsaved changes');
    const live = core.snapshot().scene;
    expect(live!.goal.center.x * 1000).toBeCloseTo(shippedGoalX, 6);

    // Open the first run (not the aborted one): its outcome, not the live ABORTED, is on the bar.
    await show('Sessions');
    const list = page.getByRole('list', { name: 'Recorded sessions' });
    const first = list.getByRole('listitem').filter({ hasNotText: 'aborted' }).last();
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'Refresh' }).click();
          const items = await list.getByRole('listitem').allTextContents();
          return (
            items.length >= 2 && !items.some((t) => t.includes('RECORDING')) && (await first.count()) === 1
          );
        },
        { timeout: 30_000 },
      )
      .toBe(true);
    expect(await phase()).toContain('ABORTED');
    await first.getByRole('button', { name: /Open session/ }).click();
    await page.getByTestId('playback-banner').waitFor();
    const recorded = page.getByTestId('recorded-outcome');
    await expect.poll(() => recorded.textContent()).toMatch(/RECORDED RUN: (FINISHED|FAILED)/);
    expect(await page.getByTestId('run-phase').count()).toBe(0);
    expect(await page.getByRole('contentinfo').textContent()).not.toContain('ABORTED');
    expect(await page.getByRole('contentinfo').textContent()).not.toContain('Aborted by operator');

    // Played to its end, then a what-if of step 0: drawn over the poses step 0 was planned from.
    await page.getByRole('button', { name: '10×' }).click();
    await page.getByRole('button', { name: /Play/ }).click();
    await expect
      .poll(() => page.getByTestId('playback-mode').textContent(), { timeout: 30_000 })
      .toContain('ended');
    const file = /\(([^()]+\.mcap)\)/.exec(
      (await page.getByTestId('playback-banner').textContent()) ?? '',
    )?.[1];
    expect(file).toBeDefined();
    const log = await SessionLog.open(path.join(root, 'sessions', file!));
    const steps = plannerSteps(await loadRecordedRun(log));
    await log.close();
    const start0 = steps[0]!.start;
    await page.getByLabel('What-if step').selectOption('0');
    await page.getByRole('button', { name: 'Re-plan step 0' }).click();
    const legend = page.getByTestId('what-if-legend');
    await legend.waitFor({ timeout: 60_000 });
    const canvas = page.getByTestId('live-canvas');
    await expect
      .poll(() => canvas.getAttribute('data-pusher-mm'))
      .toBe(`${Math.round(start0[0]! * 1000)},${Math.round(start0[1]! * 1000)}`);
    expect(await legend.textContent()).toContain('as measured when step 0 was planned');
    // The legend sits above the table, not over it, and inside the window.
    const l = (await legend.boundingBox())!;
    const c = (await canvas.boundingBox())!;
    expect(l.y + l.height).toBeLessThanOrEqual(c.y + 1);
    expect(l.x + l.width).toBeLessThanOrEqual(1280);
    await page.screenshot({ path: path.join(shots, 'trust-playback-what-if.png') });

    // Closing playback leaves the live scene exactly as the operator loaded it.
    await page.getByRole('button', { name: /Close playback/ }).click();
    await expect.poll(() => page.getByTestId('playback-mode').count()).toBe(0);
    expect(core.snapshot().scene).toEqual(live);
    expect(core.snapshot().sceneFile).toBe('isrr-obstacle.json');
    await show('Scene');
    expect(await page.locator('.current').textContent()).not.toContain('unsaved changes');
    expect(Number(await goalX().inputValue())).toBeCloseTo(shippedGoalX, 3);
  }, 200_000);
});
