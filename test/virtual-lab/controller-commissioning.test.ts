/**
 * A lab as untidy as a real one (docs/devices.md): each controller misconfiguration is refused
 * before anything moves, with its fix named, and a condition that passes (RTDE inputs held by a
 * previous session) is waited out; the virtual controller's own force limit stops the arm.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { monotonicSeconds } from '../../src-main/common/clock';
import { loadSetup } from '../../src-main/calibration/setup-file';
import { LabLink, loopbackLabAddress } from '../../src-main/lab-link/lab-link';
import { POLYSCOPE_X_UNSUPPORTED } from '../../src-main/robot/controller-support';
import { Ur5Connection } from '../../src-main/robot/ur5-connection';
import { SPEED_SLIDER_FIX } from '../../src-main/safety/controller-checks';
import type { VirtualLab } from '../../src-main/virtual-lab/virtual-lab';
import {
  labsPerTest,
  pullCableOnPreviousSession,
  quickLabTask,
  runOnLab,
  speedCommands,
} from '../helpers/virtual-lab';
import { repoRoot } from '../helpers/scenes';

const task = quickLabTask();
const labs = labsPerTest();
const tmp = (): string => mkdtempSync(path.join(os.tmpdir(), 'commissioning-'));

/** The test scene with its object made `mass` kg at sliding friction `friction`. */
function heavyScene(mass: number, friction: number): string {
  const scene = JSON.parse(readFileSync(path.join(repoRoot, 'test/fixtures/lab-short-scene.json'), 'utf8'));
  scene.sliders[0].mass = mass;
  scene.sliders[0].friction = friction;
  delete scene.$schema;
  const file = path.join(tmp(), 'heavy.json');
  writeFileSync(file, JSON.stringify(scene));
  return file;
}

function setupOf(lab: VirtualLab) {
  return loadSetup(lab.writeSetup(path.join(tmp(), 'lab.json')));
}

describe('controller misconfigurations are refused before anything moves, with the fix named', () => {
  it('speed slider at 50 %', async () => {
    const env = await labs.labAndLink({ robot: { unlockDelay: 0.3, speedSlider: 0.5 } });
    const twists = speedCommands((f) => env.lab.ur.rtde.on('input', f));
    const result = await runOnLab(env, task);
    expect(result.end).toEqual({ cause: 'not-armed' });
    expect(result.reason).toMatch(
      /Speed slider at 100 %: speed scaling 50 %.*\(fix: set the speed slider on the teach pendant to 100 %\)/,
    );
    expect(result.preflight.checks.find((c) => c.id === 'speed-slider')?.fix).toBe(SPEED_SLIDER_FIX);
    expect(twists).toHaveLength(0);
  });

  it('a slider too heavy for the 150 N force limit', async () => {
    const env = await labs.labAndLink({ scene: heavyScene(50, 5), robot: { unlockDelay: 0.3 } });
    const twists = speedCommands((f) => env.lab.ur.rtde.on('input', f));
    const result = await runOnLab(env, task);
    expect(result.end).toEqual({ cause: 'not-armed' });
    expect(result.reason).toMatch(/object needs \d+ N to slide, over 75 N/);
    expect(result.preflight.checks.find((c) => c.id === 'force-limit')?.fix).toMatch(/lighter object/);
    expect(twists).toHaveLength(0);
  });

  it('a workspace corner out of reach', async () => {
    const env = await labs.labAndLink({ robot: { unlockDelay: 0.3, tableOrigin: [0, -0.8, 0] } });
    const twists = speedCommands((f) => env.lab.ur.rtde.on('input', f));
    const result = await runOnLab(env, task);
    expect(result.end).toEqual({ cause: 'not-armed' });
    expect(result.reason).toMatch(/task corner \(-?\d+, -?\d+\) mm is \d+ mm from the shoulder, past 800 mm/);
    expect(result.preflight.checks.find((c) => c.id === 'reach')?.fix).toMatch(/within reach/);
    expect(twists).toHaveLength(0);
  });

  it('PolyScope X: named as unsupported, not a connection timeout', async () => {
    const lab = await labs.lab({ robot: { unlockDelay: 0.3, software: '10.7' } });
    expect(lab.ports.dashboard).toBe(0);
    const started = monotonicSeconds();
    await expect(LabLink.connect(loopbackLabAddress(lab.ports), lab.scene, setupOf(lab))).rejects.toThrow(
      POLYSCOPE_X_UNSUPPORTED,
    );
    expect(monotonicSeconds() - started).toBeLessThan(2000);
    // The robot link alone says the same.
    await expect(
      Ur5Connection.connect({ host: '127.0.0.1', rtdePort: lab.ports.rtde, scriptPort: lab.ports.secondary }),
    ).rejects.toThrow(/PolyScope X .* is not supported/);
  });
});

describe('RTDE inputs held by a previous session after a pulled cable', () => {
  it('are named and waited out (5 s): the run then arms and reaches the goal', async () => {
    const lab = await labs.lab({ robot: { unlockDelay: 0.3, rtdeHalfOpenHold: 5 } });
    // A previous console's robot link owned the command inputs; then its cable was pulled.
    const pulledAt = await pullCableOnPreviousSession(lab);
    const notices: string[] = [];
    const link = await LabLink.connect(loopbackLabAddress(lab.ports), lab.scene, setupOf(lab), (n) =>
      notices.push(n),
    );
    labs.closeAfter(() => link.close());
    const waited = monotonicSeconds() - pulledAt;
    expect(notices).toEqual(['RTDE inputs held by a previous session; retrying for up to 10 s']);
    expect(waited).toBeGreaterThanOrEqual(5);
    const result = await runOnLab({ link }, task);
    expect(result.preflight.ok).toBe(true);
    expect(result.end, result.reason).toEqual({ cause: 'task', result: 'success' });
  });
});

describe("the virtual controller's tool force limit", () => {
  it('raises a protective stop when the arm pushes a 50 kg slider at friction 5', async () => {
    const lab = await labs.lab({ scene: heavyScene(50, 5), robot: { unlockDelay: 0.3 } });
    const c = lab.ur.controller;
    const events: string[] = [];
    c.on('event', (e) => events.push(e));
    const stopped = new Promise<void>((resolve) =>
      c.on('event', (e) => {
        if (e === 'protective stop') resolve();
      }),
    );
    // Straight at the object (table x is base x): 7 cm to contact at 0.1 m/s.
    c.arm.speedl([0.1, 0, 0], 1);
    await stopped;
    expect(events.find((e) => /^tool force \d+ N over the 150 N limit$/.test(e))).toBeDefined();
    expect(c.safetyMode).not.toBe(1);
  });

  it('does not stop a normal push (a 0.5 kg slider)', async () => {
    const lab = await labs.lab({ robot: { unlockDelay: 0.3 } });
    const c = lab.ur.controller;
    const events: string[] = [];
    c.on('event', (e) => events.push(e));
    c.arm.speedl([0.1, 0, 0], 1);
    await new Promise((r) => setTimeout(r, 1500));
    c.arm.stopl(1.5);
    expect(lab.world.layout.sliderPose(lab.world.snapshot(), 0).x).toBeGreaterThan(-0.08);
    expect(events).not.toContain('protective stop');
  });
});
