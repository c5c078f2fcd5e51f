/**
 * The product's main job end to end (issue 45, findings 1 and 2), in Debian's Chromium: the console
 * started with a lab file (`--lab`) against a separate virtual lab process (`parapush lab`, as a
 * real lab's devices run on machines of their own), from an empty setup folder. A real start
 * without a setup is refused and records no session; the operator writes a first setup from the
 * wizard's template, connects, calibrates both stages with the wizard (jogging the pusher between
 * points), starts a real run, sees Arm enabled once the checks the run needs are green (the
 * pusher's grip "after Arm"), arms, and the run reaches its goal.
 *
 * The lab's rigid bodies are as untidy as a real lab's (issue 46, item 1): Motive streams each at its
 * markers, off the object and turned by its creation yaw. The wizard measures each body's pivot
 * offset (the pusher's by turning the tool about its tip before stage 1, the object's on its start
 * pose after it), and every body then lands within 2 mm and 1 deg of where the lab truly has it.
 * The table points typed into the wizard are where the lab's own true frames put the pusher (the
 * tape measure of a real lab): the robot's tool point through the lab process's setup.
 * Screenshots of each step: docs/screenshots/real-run-*.png and pivot-*.png (PARAPUSH_UPDATE_DOCS=1 writes them
 * there; otherwise test-artifacts/screenshots).
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plannerPresets } from '#contract/planner-settings';
import { RobotAdapter } from '../../src-main/robot/adapter';
import { loadSetup } from '../../src-main/calibration/setup-file';
import { bodyOnTable } from '../../src-main/calibration/mocap-table';
import { yawOf } from '../../src-main/common/rotation';
import { haveChromium } from '../helpers/chromium';
import {
  capturePair,
  docShot,
  openConsoleOnLab,
  pusherAtRest as settled,
  type ConsoleInChromium,
  type ConsoleOnLab,
} from '../helpers/e2e-console';
import { startLabProcess, type LabProcess } from '../helpers/lab-process';
import { repoRoot } from '../helpers/scenes';

describe.skipIf(!haveChromium)('a real run from the console (--lab, a separate virtual lab process)', () => {
  let env: ConsoleOnLab<LabProcess> | undefined;
  let dir: string;
  let lab: LabProcess;
  let e2e: ConsoleInChromium;
  let page: Page;
  const shot = (name: string) => docShot(page, name);
  const sessions = () =>
    existsSync(path.join(e2e.root, 'sessions'))
      ? readdirSync(path.join(e2e.root, 'sessions')).filter((f) => f.endsWith('.mcap'))
      : [];

  beforeAll(async () => {
    env = await openConsoleOnLab({
      prefix: 'parapush-real-run-',
      // The user's data folder for setups, empty: a first day.
      setupDir: (d) => path.join(d, 'setups'),
      // The world without execution noise: the object stays on its start pose (its marks on a real
      // table) while the arm turns and jogs, as an operator leaves it for the object pivot step.
      startLab: (d) =>
        startLabProcess(path.join(repoRoot, 'test/fixtures/lab-short-scene.json'), d, {
          noiseVariance: 0,
          seed: 1,
        }),
    });
    ({ dir, lab, e2e } = env);
    page = e2e.page;
  }, 120_000);

  afterAll(() => env?.close());

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
    await wizard.getByLabel('Fit kind').selectOption('2d');
    const jogPanel = page.getByRole('group', { name: 'Jog the pusher' });
    await jogPanel.getByLabel('Jog step (mm)').selectOption('25');

    /** Both stages at the point where the pusher stands (its true table point). */
    const captureBoth = async () => {
      const p = await pusherAtRest();
      await tab(/Motion capture → table/).click();
      await capturePair(wizard, p);
      await tab(/Table → robot base/).click();
      await capturePair(wizard, p);
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

    // Step 0: the pusher's pivot. The lab's Motive streams the pusher at its markers, 8 cm up and
    // 13 mm off its axis: the arm turns the tool about the tip and the wizard finds the tip.
    await tab(/0\. Pusher pivot/).click();
    const pusherRow = wizard.getByTestId('pivots-pusher').locator('tr[data-body="pusher"]');
    await expect.poll(() => pusherRow.getAttribute('data-saved'), { timeout: 10_000 }).toBe('false');
    await wizard.getByRole('button', { name: /Turn the tool and measure/ }).click();
    await expect
      .poll(
        async () =>
          (await pusherRow.getAttribute('data-measured')) === 'true'
            ? 'measured'
            : (await wizard.getByRole('alert').allTextContents()).join(' ') || 'measuring',
        { timeout: 90_000, interval: 500 },
      )
      .toBe('measured');
    expect(await pusherRow.textContent()).toMatch(/\(turn\); tip held within [\d.]+ mm/);
    await wizard.getByTestId('pivots-pusher').scrollIntoViewIfNeeded();
    await shot('pivot-1-pusher-turn.png');
    await wizard.getByRole('button', { name: 'Save pivots' }).click();
    await expect.poll(() => pusherRow.getAttribute('data-saved')).toBe('true');

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
    // Without the object's pivot the run is refused, the fix named.
    await expect
      .poll(() => checklist.getByRole('row', { name: /Rigid-body pivots measured/ }).textContent(), {
        timeout: 10_000,
      })
      .toMatch(/FAIL.*no pivot offset in the setup for object/);

    // Step 3: the object's pivot, standing on its start pose (where the lab placed it).
    await tab(/3\. Object pivots/).click();
    const objectRow = wizard.getByTestId('pivots-slider').locator('tr[data-body="object"]');
    await wizard.getByRole('button', { name: 'Measure object on its start pose' }).click();
    await expect
      .poll(
        async () =>
          (await objectRow.getAttribute('data-measured')) === 'true'
            ? 'measured'
            : (await wizard.getByRole('alert').allTextContents()).join(' ') || 'measuring',
        { timeout: 30_000, interval: 300 },
      )
      .toBe('measured');
    expect(await objectRow.textContent()).toMatch(/\(placement\)/);
    await wizard.getByTestId('pivots-slider').scrollIntoViewIfNeeded();
    await shot('pivot-2-object-placement.png');
    await wizard.getByRole('button', { name: 'Save pivots' }).click();
    await expect.poll(() => objectRow.getAttribute('data-saved')).toBe('true');
    await expect
      .poll(() => checklist.getByRole('row', { name: /Rigid-body pivots measured/ }).textContent(), {
        timeout: 10_000,
      })
      .toMatch(/OK.*pusher turn, object placement/);
    await checklist.getByRole('row', { name: /Rigid-body pivots measured/ }).scrollIntoViewIfNeeded();
    await shot('pivot-3-checklist.png');

    // Every body where the lab truly has it: the console's poses against the lab's own truth (its
    // setup: true frames and pivot offsets) applied to the same streamed pivots, within 2 mm and
    // 1 deg (the pusher is round: its position only).
    const link = e2e.lab.runController.currentConnection().current()!;
    const poses = link.poses()!;
    for (const body of [poses.pusher, ...poses.sliders]) {
      const truth = bodyOnTable(lab.setup.mocap, body.rigidBody!, body.raw!.position, body.raw!.orientation);
      const seen = body.pose!;
      const apart = Math.hypot(seen.x - truth.position[0], seen.y - truth.position[1]);
      expect(apart, `${body.rigidBody} ${(apart * 1000).toFixed(2)} mm off`).toBeLessThan(0.002);
      if (body === poses.pusher) continue;
      const turn = Math.abs(
        Math.atan2(
          Math.sin(seen.theta - yawOf(truth.orientation)),
          Math.cos(seen.theta - yawOf(truth.orientation)),
        ),
      );
      expect(turn, `${body.rigidBody} ${((turn * 180) / Math.PI).toFixed(2)} deg off`).toBeLessThan(
        Math.PI / 180,
      );
    }
    // The lab's pivots are far off the objects: these poses are not the raw pivots'.
    expect(Math.hypot(...lab.setup.mocap.pivots!.object!.position.slice(0, 2))).toBeGreaterThan(0.01);

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
