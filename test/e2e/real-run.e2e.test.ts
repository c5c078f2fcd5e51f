/**
 * The product's main job end to end (issue 45, findings 1 and 2), in Debian's Chromium: the console
 * started with a lab file (`--lab`) against a separate virtual lab process (`parapush lab`, as a
 * real lab's devices run on machines of their own), from an empty setup folder. A real start
 * without a setup is refused and records no session; the operator writes a first setup from the
 * wizard's template, connects, calibrates both stages with the wizard (jogging the pusher between
 * points), starts a real run, sees Arm enabled once the checks the run needs are green (the
 * pusher's grip "after Arm"), arms, and the run reaches its goal.
 *
 * The table points typed into the wizard are where the lab's own true frames put the pusher (the
 * tape measure of a real lab): the robot's tool point through the lab process's setup.
 * Screenshots of each step: docs/screenshots/real-run-*.png (PARAPUSH_UPDATE_DOCS=1 writes them
 * there; otherwise test-artifacts/screenshots).
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plannerPresets } from '#contract/planner-settings';
import { RobotAdapter } from '../../src-main/robot/adapter';
import { loadSetup } from '../../src-main/calibration/setup-file';
import { haveChromium, docScreenshotsDir, screenshotsDir, updateDocs } from '../helpers/chromium';
import {
  openConsoleOnLoopbackLab,
  pusherAtRest as settled,
  useSetupDir,
  type ConsoleInChromium,
} from '../helpers/e2e-console';
import { startLabProcess, type LabProcess } from '../helpers/lab-process';
import { repoRoot } from '../helpers/scenes';

describe.skipIf(!haveChromium)('a real run from the console (--lab, a separate virtual lab process)', () => {
  let dir: string;
  let lab: LabProcess;
  let e2e: ConsoleInChromium;
  let page: Page;
  let restoreSetupDir: () => void;
  const shot = (name: string) =>
    page.screenshot({ path: path.join(updateDocs ? docScreenshotsDir : screenshotsDir, name) });
  const sessions = () =>
    existsSync(path.join(e2e.root, 'sessions'))
      ? readdirSync(path.join(e2e.root, 'sessions')).filter((f) => f.endsWith('.mcap'))
      : [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'parapush-real-run-'));
    // The user's data folder for setups, empty: a first day.
    restoreSetupDir = useSetupDir(path.join(dir, 'setups'));
    lab = await startLabProcess(path.join(repoRoot, 'test/fixtures/lab-short-scene.json'), dir);
    e2e = await openConsoleOnLoopbackLab(lab.ports);
    page = e2e.page;
  }, 120_000);

  afterAll(async () => {
    await e2e?.close();
    await lab?.stop();
    restoreSetupDir?.();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The pusher where the lab's true frames put it: the robot's tool point through the lab's setup (m). */
  const truePusher = (): [number, number] | null => {
    const tcp = e2e.lab.runController.currentConnection().current()?.robot.latest?.tcpPose;
    if (!tcp) return null;
    const p = new RobotAdapter({
      calibration: lab.setup.robot.calibration,
      pusherOffset: lab.setup.robot.pusherOffset,
    }).pusherPosition(tcp);
    return [p.x, p.y];
  };

  /** The pusher once it stands still (two looks 500 ms apart within 0.1 mm). */
  const pusherAtRest = (): Promise<[number, number]> => settled(page, truePusher);

  it('refuses a real start without a setup and records nothing; writes a first setup from the template; connects', async () => {
    const nav = page.getByRole('navigation', { name: 'Views' });
    await nav.getByRole('button', { name: 'Run' }).click();
    await page.getByRole('button', { name: 'Start real run' }).click();
    await expect
      .poll(() => page.getByRole('alert').allTextContents(), { timeout: 30_000 })
      .toContainEqual(
        expect.stringMatching(/cannot connect to the lab: no lab setup at .*127\.0\.0\.1\.json/),
      );
    // A refused start is not a failed run: no session log, the run still idle.
    expect(sessions()).toEqual([]);
    expect(e2e.core.snapshot().run.phase).toBe('idle');
    expect(await page.getByTestId('arm-why').textContent()).toContain('Arm is off: no real run is waiting');

    await nav.getByRole('button', { name: 'Setup' }).click();
    const connect = page.getByTestId('lab-connect');
    await expect.poll(() => connect.textContent(), { timeout: 10_000 }).toContain('Not connected');
    await connect.getByRole('button', { name: 'Connect', exact: true }).click();
    await expect
      .poll(() => page.getByTestId('lab-connect-error').textContent(), { timeout: 30_000 })
      .toMatch(/no lab setup at .*: write a first setup from the template/);
    await shot('real-run-1-no-setup.png');

    // Step 0 of the wizard: the table and the tool as measured, the envelope as chosen.
    const template = page.getByRole('group', { name: 'First setup from a template' });
    await template.getByLabel('Setup name').fill('lab-short-first');
    const mm = (m: number) => (m * 1000).toFixed(1);
    await template.getByLabel('Table size x (mm)').fill(mm(lab.setup.table.size.x));
    await template.getByLabel('Table size y (mm)').fill(mm(lab.setup.table.size.y));
    const [ox, oy, oz] = lab.setup.robot.pusherOffset;
    await template.getByLabel('Pusher offset x (mm)').fill(mm(ox));
    await template.getByLabel('Pusher offset y (mm)').fill(mm(oy));
    await template.getByLabel('Pusher offset z (mm)').fill(mm(oz));
    await template.getByLabel('Motion capture up axis').selectOption(lab.setup.mocap.upAxis);
    await template.scrollIntoViewIfNeeded();
    await shot('real-run-2-first-setup.png');
    await template.getByRole('button', { name: 'Write first setup' }).click();
    const file = path.join(dir, 'setups', '127.0.0.1.json');
    await expect.poll(() => existsSync(file), { timeout: 10_000 }).toBe(true);
    expect(loadSetup(file)).toMatchObject({ name: 'lab-short-first', notCalibrated: ['mocap', 'robot'] });
    await expect.poll(() => template.count()).toBe(0);

    await connect.getByRole('button', { name: 'Connect', exact: true }).click();
    await expect.poll(() => connect.getAttribute('data-connected'), { timeout: 30_000 }).toBe('true');
    const checklist = page.getByRole('table', { name: 'Pre-flight checklist' });
    const calibration = checklist.getByRole('row', { name: /Calibration loaded/ });
    await expect
      .poll(() => calibration.textContent(), { timeout: 30_000 })
      .toMatch(/FAIL.*setup from a template: calibrate motion capture -> table and table -> robot base/);
    // The pusher's grip is judged after Arm, never a failure before it.
    await expect
      .poll(() => checklist.getByRole('row', { name: /Pusher held/ }).textContent())
      .toContain('AFTER ARM');
    await shot('real-run-3-connected.png');
  }, 180_000);

  it('calibrates both stages with the wizard, jogging the pusher between points', async () => {
    const wizard = page.getByRole('region', { name: 'Calibration wizard' });
    const tab = (name: RegExp) => wizard.getByRole('tab', { name });
    const rows = wizard.getByRole('table', { name: 'Calibration pairs' }).locator('tbody tr[data-worst]');
    const capture = wizard.getByRole('button', { name: /Capture point|Capturing/ });
    await wizard.getByLabel('Fit kind').selectOption('2d');
    const jogPanel = page.getByRole('group', { name: 'Jog the pusher' });
    await jogPanel.getByLabel('Jog step (mm)').selectOption('25');

    /** Captures the current stage at the pusher's true table point (again after a refused capture). */
    const captureHere = async (p: readonly [number, number]) => {
      await wizard.getByLabel('Table point x (mm)').fill((p[0] * 1000).toFixed(1));
      await wizard.getByLabel('Table point y (mm)').fill((p[1] * 1000).toFixed(1));
      const n = await rows.count();
      await expect
        .poll(
          async () => {
            if ((await rows.count()) === n + 1) return true;
            if (await capture.isEnabled()) await capture.click();
            return false;
          },
          { timeout: 30_000, interval: 700 },
        )
        .toBe(true);
    };
    /** Both stages at the point where the pusher stands. */
    const captureBoth = async () => {
      const p = await pusherAtRest();
      await tab(/Motion capture → table/).click();
      await captureHere(p);
      await tab(/Table → robot base/).click();
      await captureHere(p);
    };
    const jogged = page.getByLabel('Event log').locator('li', { hasText: 'jogged the tool' });
    const jog = async (button: Locator) => {
      const n = await jogged.count();
      await button.click();
      // Before calibration the console cannot judge the path on the table: it asks, and the
      // operator (who has looked) jogs anyway.
      const ask = jogPanel.getByRole('alertdialog', { name: 'Confirm the jog' });
      await expect.poll(() => ask.textContent(), { timeout: 10_000 }).toContain('not calibrated yet');
      await ask.getByRole('button', { name: 'Jog anyway' }).click();
      // Done (the arm has stopped) when the log says how far it went; a refusal says why.
      const done = async () =>
        (await jogged.count()) === n + 1
          ? 'jogged'
          : (await jogPanel.getByRole('alert').allTextContents()).join(' ') || 'jogging';
      await expect.poll(done, { timeout: 30_000 }).toBe('jogged');
    };

    // Four points around the pusher's start, clear of the object in front of it (+x).
    await captureBoth();
    await jog(jogPanel.getByRole('button', { name: 'Jog −x' }));
    await captureBoth();
    await jog(jogPanel.getByRole('button', { name: 'Jog +y' }));
    await captureBoth();
    await jog(jogPanel.getByRole('button', { name: 'Jog +x' }));
    await captureBoth();
    // Back to the start for the run.
    await jog(jogPanel.getByRole('button', { name: 'Jog −y' }));

    const residual = wizard.getByTestId('calibration-residual');
    for (const stage of [/Motion capture → table/, /Table → robot base/]) {
      await tab(stage).click();
      await wizard.getByRole('button', { name: 'Fit', exact: true }).click();
      await expect.poll(() => residual.textContent()).toContain('within the limit');
      await wizard.getByRole('button', { name: 'Save to setup' }).click();
      await expect.poll(() => wizard.getByTestId('calibration-saved').count()).toBe(1);
    }
    const checklist = page.getByRole('table', { name: 'Pre-flight checklist' });
    await expect
      .poll(() => checklist.getByRole('row', { name: /Calibration loaded/ }).textContent(), {
        timeout: 10_000,
      })
      .toMatch(/OK\s*residual/);
    await expect
      .poll(() => checklist.getByRole('row', { name: /agree on the pusher/ }).textContent(), {
        timeout: 10_000,
      })
      .toContain('OK');
    expect(loadSetup(path.join(dir, 'setups', '127.0.0.1.json')).notCalibrated).toBeUndefined();
    await page.getByRole('heading', { name: 'Pre-flight checklist' }).scrollIntoViewIfNeeded();
    await shot('real-run-4-calibrated.png');
  }, 300_000);

  it('starts a real run, enables Arm once the checks the run needs are green, arms, and reaches the goal', async () => {
    // A quick planner on one worker: the coarse model, two controls, four rollouts.
    const settings = {
      ...plannerPresets['isrr2019-coarse'].settings,
      horizon: 2,
      slices: 2,
      rollouts: 4,
      maxExecutedActions: 20,
    };
    expect(await e2e.core.handle({ type: 'settings.set', settings })).toMatchObject({ ok: true });
    await page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Run' }).click();
    const arm = page.getByRole('button', { name: 'Arm', exact: true });
    const why = page.getByTestId('arm-why');
    const phase = () => page.getByTestId('run-phase').textContent();
    const reason = () => page.getByTestId('run-reason').textContent();
    // On a loaded two-core machine the lab process's streams can pause past the supervisor's
    // 100 ms limits (a safety stop, as it should be): then the operator starts the run again.
    for (let attempt = 1; attempt <= 4; attempt++) {
      const start = page.getByRole('button', { name: 'Start real run' });
      await expect.poll(() => start.isEnabled(), { timeout: 60_000 }).toBe(true);
      await start.click();
      await expect.poll(() => arm.isEnabled(), { timeout: 90_000 }).toBe(true);
      expect(await why.textContent()).toMatch(/Arm is on:.*after Arm the run readies the gripper/);
      // Nothing plans while the run waits: the readout says so and counts nothing.
      expect(await page.getByTestId('readout-activity').getAttribute('data-kind')).toBe('awaiting-arm');
      // The status bar's safety agrees with the robot's (the Setup view's): not UNKNOWN.
      expect(await page.getByTestId('safety').textContent()).toContain('SAFE');
      if (attempt === 1) await shot('real-run-5-arm-enabled.png');

      await arm.click();
      await expect.poll(phase, { timeout: 240_000, interval: 500 }).toMatch(/FINISHED|FAILED|ABORTED/);
      // Stopped (or refused after gripping) for streams that paused: the lab process stalled.
      const stalled =
        /^(Motion capture stale|No robot state for|Control loop stalled|pre-flight checks failed: Motion capture fresh)/;
      if (!stalled.test((await reason()) ?? '')) break;
    }
    expect(await reason()).toMatch(/Goal reached/i);
    expect(await phase()).toContain('FINISHED');
    expect(await page.getByTestId('run-banner').getAttribute('data-tone')).toBe('done');
    await shot('real-run-6-goal-reached.png');
    // Every session is a run that was armed; none from the refused start.
    expect(sessions().length).toBeGreaterThanOrEqual(1);
  }, 900_000);
});
