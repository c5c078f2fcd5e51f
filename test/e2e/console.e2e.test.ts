/**
 * End to end in Debian's Chromium against web mode on the real core: the run controller, the
 * supervisor and the virtual lab in its own thread (virtual UR, gripper and NatNet server on loopback),
 * wired as `parapush web` wires them. Load a scene, see it drawn and the lab connected, start a dry
 * run, see the plan and each Parareal iteration's prediction, press Esc: the virtual controller
 * receives the stop and the UI shows "Aborted by operator". Then the Sessions view: find that
 * run's session, play it back at 10x and see the recorded plan drawn (marked PLAYBACK, run
 * controls off), re-plan a logged step (what-if) and close back to live. Sessions go to a temp
 * folder (PARAPUSH_SESSIONS_DIR; test/helpers/e2e-console.ts starts it all). Screenshots of each
 * view go to test-artifacts/screenshots/; with PARAPUSH_UPDATE_DOCS=1 the live view and the
 * Sessions view also refresh docs/screenshots/ (so a plain test run never changes committed files).
 */
import { copyFileSync } from 'node:fs';
import path from 'node:path';
import { monotonicSeconds } from '../../src-main/common/clock';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsoleCore } from '../../src-main/console/console-core';
import type { ConsoleLab } from '../../src-main/console/console-lab';
import type { WebServer } from '../../src-main/console/web-server';
import { defaultSessionsDir } from '../../src-main/session/sessions-dir';
import type { LabInputWrite } from '../../src-main/virtual-lab/lab-thread/lab-thread';
import { CommandCode, INPUT_NAMES } from '../../src-main/robot/registers';
import {
  docScreenshotsDir as readmeShots,
  haveChromium,
  screenshotsDir as shots,
  updateDocs,
} from '../helpers/chromium';
import { openConsoleInChromium, type ConsoleInChromium } from '../helpers/e2e-console';

describe.skipIf(!haveChromium)('console in Chromium (web mode, real core, virtual lab)', () => {
  let e2e: ConsoleInChromium;
  let root: string;
  let server: WebServer;
  let lab: ConsoleLab;
  let core: ConsoleCore;
  let page: Page;
  const cspViolations: string[] = [];
  /** When the virtual controller decoded each STOP from the run on, s (common/clock). */
  const stops: number[] = [];

  beforeAll(async () => {
    e2e = await openConsoleInChromium({ width: 1600, height: 1000 });
    ({ root, server, lab, core, page } = e2e);
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
    });
  });

  afterAll(async () => {
    await e2e?.close();
  });

  it('refuses the page without the token', async () => {
    const response = await page.goto(server.url.replace(/\?token=.*/, ''));
    expect(response?.status()).toBe(401);
  });

  it('loads a scene and draws it', async () => {
    await page.goto(server.url);
    await page.getByLabel('Scene file').selectOption('isrr-obstacle.json');
    await page.getByRole('button', { name: 'Load', exact: true }).click();
    const canvas = page.getByTestId('live-canvas');
    await expect
      .poll(() => canvas.getAttribute('aria-label'))
      .toContain('Table 1000 × 800 mm; 1 slider(s); 1 obstacle(s)');
    await page.screenshot({ path: path.join(shots, 'scene.png') });
  });

  it('shows the virtual lab connected and its pre-flight checklist in the Setup view', async () => {
    await page.getByRole('navigation').getByRole('button', { name: 'Setup' }).click();
    const links = page.getByRole('table', { name: 'Connections' });
    await expect
      .poll(() => links.getByRole('row', { name: /OptiTrack/ }).textContent(), { timeout: 30_000 })
      .toMatch(/connected.*frames\/s/);
    await expect.poll(() => links.getByRole('row', { name: /UR5/ }).textContent()).toContain('robot RUNNING');
    const checklist = page.getByRole('table', { name: 'Pre-flight checklist' });
    await expect.poll(() => checklist.textContent()).toContain('Motion capture fresh');
    // Before a run has gripped the pusher (once armed), that check is judged after Arm and says so.
    await expect
      .poll(() => checklist.getByRole('row', { name: /Pusher held/ }).textContent())
      .toContain('AFTER ARM');
    await page.screenshot({ path: path.join(shots, 'setup.png') });

    // The calibration wizard captures the live pusher. The virtual pusher stands still, so three
    // captures at three table points measure one place: the wizard warns of it, and the fit is far
    // off, so Save stays off.
    const wizard = page.getByRole('region', { name: 'Calibration wizard' });
    await wizard.scrollIntoViewIfNeeded();
    const pairs = wizard.getByRole('table', { name: 'Calibration pairs' });
    const capture = wizard.getByRole('button', { name: /Capture point|Capturing/ });
    for (const [i, preset] of ['0', '1', '2'].entries()) {
      await wizard.getByLabel('Table point preset').selectOption(preset);
      // A capture refused for a stale frame on this loaded machine is simply taken again.
      await expect
        .poll(
          async () => {
            if ((await pairs.locator('tbody tr[data-worst]').count()) === i + 1) return true;
            if (await capture.isEnabled()) await capture.click();
            return false;
          },
          { timeout: 20_000, interval: 700 },
        )
        .toBe(true);
    }
    expect(await pairs.locator('tbody tr').first().textContent()).toContain('-55, -55');
    const save = wizard.getByRole('button', { name: 'Save to setup' });
    expect(await save.isDisabled()).toBe(true);
    await wizard.getByRole('button', { name: 'Fit', exact: true }).click();
    const residual = wizard.getByTestId('calibration-residual');
    await expect.poll(() => residual.textContent({ timeout: 5000 })).toContain('above the limit');
    expect(await pairs.locator('tbody tr[data-worst="true"]').count()).toBe(1);
    expect(await save.isDisabled()).toBe(true);
    expect(await wizard.getByTestId('calibration-repeated').textContent()).toContain(
      'measured the same place',
    );
    await residual.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(shots, 'setup-calibration.png') });
    await wizard.getByRole('button', { name: 'Clear pairs' }).click();
    await expect.poll(() => pairs.textContent({ timeout: 5000 })).toContain('No pairs yet.');

    for (const view of ['Planner', 'Sessions'] as const) {
      await page.getByRole('navigation').getByRole('button', { name: view }).click();
      await page.getByRole('heading', { name: view }).waitFor();
      await page.screenshot({ path: path.join(shots, `${view.toLowerCase()}.png`) });
    }
  });

  it('takes a fast preset: Parareal with 1 iteration, 4 rollouts', async () => {
    await page.getByRole('navigation').getByRole('button', { name: 'Planner' }).click();
    await page.getByLabel('Preset').selectOption('isrr2019-parareal-1');
    await page.getByRole('button', { name: 'Apply preset' }).click();
    await expect.poll(() => page.getByLabel('Parareal iterations').inputValue()).toBe('1');
    await page.getByLabel('Rollouts').fill('4');
    await page.getByLabel('Rollouts').dispatchEvent('change');
    await page.getByRole('button', { name: 'Apply settings' }).click();
    await expect.poll(() => core.snapshot().settings.rollouts).toBe(4);
  });

  it('starts a dry run on the virtual lab and draws the plan and each Parareal iteration', async () => {
    await page.getByRole('navigation').getByRole('button', { name: 'Run' }).click();
    await page.getByRole('button', { name: /Start dry run/ }).click();
    await expect
      .poll(() => page.getByTestId('run-phase').textContent(), { timeout: 30_000 })
      .toContain('RUNNING (dry run)');
    await expect.poll(() => page.getByTestId('armed').textContent()).toContain('ARMED');
    await expect
      .poll(() => page.getByTestId('live-canvas').getAttribute('aria-label'), { timeout: 30_000 })
      .toContain('plan step 0 with 4 action(s); predictions for Parareal iteration(s) 0, 1');
    // From here on, every stop the virtual controller decodes is recorded.
    lab.virtualLab.thread()!.onInput((w: LabInputWrite) => {
      const i = w.names.indexOf(INPUT_NAMES.command);
      if (i >= 0 && w.values[i] === CommandCode.STOP) stops.push(w.receivedAt);
    });
    // Let the arm push for a moment so the live view shows the executed path.
    await page.waitForTimeout(500);
    await page.screenshot({ path: path.join(shots, 'run-live-view.png') });
    if (updateDocs)
      copyFileSync(path.join(shots, 'run-live-view.png'), path.join(readmeShots, 'live-view.png'));
  });

  it('aborts on Esc: the virtual controller gets the stop and the UI says "Aborted by operator"', async () => {
    const before = monotonicSeconds();
    await page.keyboard.press('Escape');
    await expect.poll(() => stops.filter((t) => t >= before).length).toBeGreaterThan(0);
    await expect.poll(() => page.getByTestId('run-reason').textContent()).toBe('Aborted by operator');
    await expect.poll(() => page.getByTestId('safety').textContent()).toContain('STOPPED');
    await expect.poll(() => page.getByTestId('armed').textContent()).toContain('DISARMED');
    const log = page.getByLabel('Event log');
    await expect.poll(() => log.textContent()).toContain('Abort requested by operator (Esc key)');
    await expect.poll(() => log.textContent()).toContain('STOP: Aborted by operator');
    await expect
      .poll(() => page.getByTestId('run-phase').textContent(), { timeout: 30_000 })
      .toContain('ABORTED');
    await page.screenshot({ path: path.join(shots, 'aborted.png') });
  });

  it("finds the aborted run's session and plays it back at 10x, drawing the recorded plan", async () => {
    expect(defaultSessionsDir()).toBe(path.join(root, 'sessions'));
    await page.getByRole('navigation').getByRole('button', { name: 'Sessions' }).click();
    const list = page.getByRole('list', { name: 'Recorded sessions' });
    const session = list.getByRole('listitem').filter({ hasText: 'aborted' });
    // The log is finalized just after the run ends: refresh until it is listed as complete.
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'Refresh' }).click();
          return session.count();
        },
        { timeout: 30_000 },
      )
      .toBe(1);
    expect(await session.textContent()).toContain('isrr-obstacle');
    await session.getByRole('button', { name: /Open session/ }).click();
    await expect.poll(() => page.getByTestId('playback-mode').textContent()).toContain('PLAYBACK, NOT LIVE');
    await page.getByTestId('playback-banner').waitFor();
    // A fresh view: nothing of the live run is drawn until the recording plays.
    await expect
      .poll(() => page.getByTestId('live-canvas').getAttribute('aria-label'))
      .not.toContain('plan step');
    await page.getByRole('button', { name: '10×' }).click();
    await expect.poll(() => page.getByTestId('playback-mode').textContent()).toContain('at 10×');
    await page.getByRole('button', { name: /Play/ }).click();
    await expect
      .poll(() => page.getByTestId('live-canvas').getAttribute('aria-label'), { timeout: 30_000 })
      .toContain('plan step 0 with 4 action(s); predictions for Parareal iteration(s) 0, 1');
    await expect
      .poll(() => page.getByTestId('playback-mode').textContent(), { timeout: 30_000 })
      .toContain('ended');
    const log = page.getByLabel('Event log');
    await expect
      .poll(() => log.locator('li[data-playback]').filter({ hasText: 'ALLOW: Run started' }).count())
      .toBeGreaterThan(0);
    // The log goes on past the end of the run: the abort's stop decision is replayed too.
    await expect
      .poll(() => log.locator('li[data-playback]').filter({ hasText: 'Aborted by operator' }).count())
      .toBeGreaterThan(0);
    // The status bar shows the recording's outcome in place of the live run's, and nothing can
    // start or arm a run.
    expect(await page.getByTestId('recorded-outcome').textContent()).toContain('RECORDED RUN: ABORTED');
    expect(await page.getByTestId('run-phase').count()).toBe(0);
    await page.getByRole('navigation').getByRole('button', { name: 'Run' }).click();
    expect(await page.getByRole('button', { name: /Start dry run/ }).isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Arm' }).isDisabled()).toBe(true);
    await page.getByRole('navigation').getByRole('button', { name: 'Sessions' }).click();
  });

  it('re-plans the recorded step with 2 Parareal iterations and draws it beside the logged plan', async () => {
    await page.getByLabel('What-if step').selectOption('0');
    await page.getByLabel('What-if Parareal iterations').fill('2');
    await page.getByLabel('What-if Parareal iterations').dispatchEvent('change');
    await page.getByRole('button', { name: 'Re-plan step 0' }).click();
    const costs = page.getByRole('table', { name: 'What-if costs' });
    await costs.waitFor({ timeout: 50_000 });
    expect(await costs.textContent()).toContain('Parareal, 2 iterations');
    expect(await costs.textContent()).toMatch(/what-if \(dashed purple\).*\d/);
    await expect
      .poll(() => page.getByTestId('live-canvas').getAttribute('aria-label'))
      .toContain('what-if plan for step 0 with 4 action(s)');
    const legend = page.getByTestId('what-if-legend');
    expect(await legend.textContent()).toContain('Logged plan (solid orange');
    expect(await legend.textContent()).toContain('What-if plan (dashed purple');
    await page.screenshot({ path: path.join(shots, 'sessions.png') });
    if (updateDocs) copyFileSync(path.join(shots, 'sessions.png'), path.join(readmeShots, 'sessions.png'));
  });

  it('closes playback back to the live console', async () => {
    await page.getByRole('button', { name: /Close playback/ }).click();
    await expect.poll(() => page.getByTestId('playback-mode').count()).toBe(0);
    expect(await page.getByTestId('playback-banner').count()).toBe(0);
    expect(await page.getByTestId('what-if-legend').count()).toBe(0);
    expect(await page.getByLabel('Event log').locator('li[data-playback]').count()).toBe(0);
    // The live run's plan is back on screen.
    expect(await page.getByTestId('live-canvas').getAttribute('aria-label')).toContain('plan step');
    await page.getByRole('navigation').getByRole('button', { name: 'Run' }).click();
    expect(await page.getByRole('button', { name: /Start dry run/ }).isDisabled()).toBe(false);
  });

  it('has the server reject malformed API messages from the page', async () => {
    const reply = await page.evaluate(async (port) => {
      const token = new URLSearchParams(location.search).get('token');
      const ws = new WebSocket(`ws://127.0.0.1:${port}/api?token=${token}`);
      await new Promise((r) => ws.addEventListener('open', r));
      const answer = new Promise<string>((r) =>
        ws.addEventListener('message', (e) => {
          if (String(e.data).includes('"rejected"')) r(String(e.data));
        }),
      );
      ws.send(JSON.stringify({ kind: 'command', id: 1, command: { type: 'run.start', mode: 'yolo' } }));
      const text = await answer;
      ws.close();
      return text;
    }, server.port);
    expect(JSON.parse(reply)).toMatchObject({
      kind: 'rejected',
      reason: expect.stringContaining('command.mode'),
    });
  });

  it('ran without content security policy violations', () => {
    expect(cspViolations).toEqual([]);
  });
});
