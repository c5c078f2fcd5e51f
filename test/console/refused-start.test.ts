/**
 * A real start the lab refuses (unreachable, or no setup yet on a first day) is refused before
 * anything of the run is recorded: no failed session, the run idle (issue 45, finding 2). And the
 * Setup view's first setup: written from the template into the lab's setup file, with both
 * calibrations listed as still to do (so no run can be armed on it), never over an existing one.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { SetupTemplate } from '#contract/lab-setup';
import { ConsoleCore } from '../../src-main/console/console-core';
import { LabControl } from '../../src-main/console/lab-control';
import { LabRunController } from '../../src-main/console/lab-run-controller';
import { LabConnection } from '../../src-main/lab-link/lab-connection';
import { RunOwner } from '../../src-main/run/run-owner';
import { loadSetup } from '../../src-main/calibration/setup-file';
import { preflight } from '../../src-main/safety/preflight';
import { repoRoot } from '../helpers/scenes';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'parapush-refused-start-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const template: SetupTemplate = {
  name: 'first-lab',
  table: { x: 1, y: 0.8 },
  pusherOffset: [0, 0, 0.15],
  workspaceMargin: 0.03,
  heightBand: [0, 0.02],
  maxCalibrationResidual: 0.003,
  mocapUpAxis: 'y',
};

/** A console whose real lab has no setup file yet (its opener refuses, as real-lab-connection.ts does). */
function consoleWithoutSetup(name: string) {
  const sessionsDir = path.join(tmp, name, 'sessions');
  const setupFile = path.join(tmp, name, 'setups', '127.0.0.1.json');
  const refuse = (what: string) => async () => {
    throw new Error(`no lab setup at ${what}: write a first setup from the template`);
  };
  const realLab = new LabConnection('real', 'lab: robot 127.0.0.1', refuse(setupFile), setupFile);
  const virtualLab = new LabConnection('virtual', 'virtual lab', refuse('virtual'));
  const controller = new LabRunController({
    virtualLab,
    realLab,
    tasksDir: path.join(repoRoot, 'resources/tasks'),
    owner: new RunOwner({ workers: 1 }),
  });
  const core = new ConsoleCore({
    scenesDir: path.join(repoRoot, 'resources/scenes'),
    runController: controller,
    sessionsDir,
    labControl: new LabControl({
      realLab,
      connect: (scene, settings) => controller.connect(scene, settings),
      disconnect: () => controller.disconnect(),
    }),
  });
  return { core, sessionsDir, setupFile };
}

describe('a refused real start', () => {
  it('records no session, leaves the run idle and says why', async () => {
    const { core, sessionsDir } = consoleWithoutSetup('refused');
    expect((await core.handle({ type: 'scene.load', file: 'isrr-obstacle.json' })).ok).toBe(true);
    const r = await core.handle({ type: 'run.start', mode: 'real' });
    expect(r).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^cannot connect to the lab: no lab setup at .*127\.0\.0\.1\.json/),
    });
    expect(core.snapshot().run.phase).toBe('idle');
    const logs = existsSync(sessionsDir) ? readdirSync(sessionsDir).filter((f) => f.endsWith('.mcap')) : [];
    expect(logs).toEqual([]);
    core.dispose();
  });
});

describe('a first setup from the template', () => {
  it('is written to the lab setup file with both calibrations still to do, and never over a setup', async () => {
    const { core, setupFile } = consoleWithoutSetup('template');
    expect((await core.handle({ type: 'scene.load', file: 'isrr-obstacle.json' })).ok).toBe(true);
    expect(await core.handle({ type: 'lab.get' })).toMatchObject({
      ok: true,
      result: { configured: true, connected: false, setupFile, setupExists: false, notCalibrated: [] },
    });
    expect(await core.handle({ type: 'setup.create', template })).toMatchObject({
      ok: true,
      result: { setupExists: true, notCalibrated: ['mocap', 'robot'] },
    });
    const setup = loadSetup(setupFile);
    expect(setup).toMatchObject({
      name: 'first-lab',
      notCalibrated: ['mocap', 'robot'],
      table: { size: { x: 1, y: 0.8 } },
      robot: { pusherOffset: [0, 0, 0.15] },
      safety: { workspaceMargin: 0.03, heightBand: [0, 0.02], maxCalibrationResidual: 0.003 },
    });
    // Its placeholder frames fit perfectly by construction: the checklist still refuses them.
    const check = preflight({
      mocap: undefined,
      robot: undefined,
      robotLinkUp: false,
      gripper: undefined,
      calibration: { residual: 0, notCalibrated: setup.notCalibrated },
      scene: core.snapshot().scene!,
      maxCalibrationResidual: setup.safety.maxCalibrationResidual,
    }).checks.find((c) => c.id === 'calibration');
    expect(check).toMatchObject({
      ok: false,
      reason:
        'setup from a template: calibrate motion capture -> table and table -> robot base (Setup view, Calibration wizard)',
    });
    // A second template never replaces a setup (its calibrations would be lost).
    expect(await core.handle({ type: 'setup.create', template })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^a setup already exists at /),
    });
    // Values outside the setup's physical limits are refused, with the limit.
    const { core: other } = consoleWithoutSetup('template-bad');
    expect(
      await other.handle({ type: 'setup.create', template: { ...template, workspaceMargin: 0.5 } }),
    ).toMatchObject({ ok: false, error: expect.stringMatching(/workspaceMargin.*between 0\.01 and 0\.2 m/) });
    core.dispose();
    other.dispose();
  });

  it('is refused, with how to configure one, without a real lab', async () => {
    const core = new ConsoleCore({ scenesDir: path.join(repoRoot, 'resources/scenes') });
    expect(await core.handle({ type: 'lab.get' })).toMatchObject({ ok: true, result: { configured: false } });
    for (const type of ['lab.connect', 'lab.disconnect'] as const)
      expect(await core.handle({ type })).toMatchObject({
        ok: false,
        error: expect.stringMatching(/^No real lab is configured/),
      });
    core.dispose();
  });
});
