/**
 * The controller checks before arming (safety/controller-checks.ts): each misconfiguration is
 * refused with its fix named, and the virtual lab's default placement passes every shipped scene.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Scene } from '#contract/scene';
import { loadSceneFile } from '../../src-main/common/config-files';
import { LAB_ROBOT_DEFAULTS, labSetupFor } from '../helpers/lab-setup';
import { labConfigSchema } from '../../src-main/virtual-lab/virtual-lab';
import {
  forceLimitCheck,
  reachCheck,
  SPEED_SLIDER_FIX,
  speedSliderCheck,
} from '../../src-main/safety/controller-checks';
import type { RobotState } from '../../src-main/robot/robot-state';
import { repoRoot } from '../helpers/scenes';

const scenesDir = path.join(repoRoot, 'resources/scenes');
const isrr = loadSceneFile(path.join(scenesDir, 'isrr-obstacle.json'));
const setupAt = labSetupFor;

function robotAt(speedScaling: number): RobotState {
  return { speedScaling } as RobotState;
}

describe('speed slider', () => {
  it('passes at 100 % and refuses 50 % naming the fix', () => {
    expect(speedSliderCheck(robotAt(1)).ok).toBe(true);
    const half = speedSliderCheck(robotAt(0.5));
    expect(half.ok).toBe(false);
    expect(half.reason).toMatch(/50 %/);
    expect(half.fix).toBe(SPEED_SLIDER_FIX);
    expect(speedSliderCheck(robotAt(0.99)).ok).toBe(false);
    expect(speedSliderCheck(undefined).ok).toBe(false);
  });
});

describe('reach and singular zones', () => {
  it("passes every shipped scene on the virtual lab's default placement", () => {
    const robot = labConfigSchema.parse({}).robot;
    expect({
      tableYaw: robot.tableYaw,
      tableOrigin: robot.tableOrigin,
      pusherOffset: robot.pusherOffset,
    }).toEqual(LAB_ROBOT_DEFAULTS);
    for (const f of readdirSync(scenesDir)) {
      const scene = loadSceneFile(path.join(scenesDir, f));
      const check = reachCheck(setupAt(scene), scene);
      expect(check.ok, `${f}: ${check.reason}`).toBe(true);
    }
  });

  it('refuses a task corner out of reach, naming the corner and the fix', () => {
    const check = reachCheck(setupAt(isrr, [0, -0.75, 0]), isrr);
    expect(check.ok).toBe(false);
    expect(check.reason).toMatch(/task corner \(-?\d+, -?\d+\) mm is \d+ mm from the shoulder, past 800 mm/);
    expect(check.fix).toMatch(/within reach/);
  });

  it("refuses a task region over the base (the shoulder's singular cylinder)", () => {
    const check = reachCheck(setupAt(isrr, [0, -0.1, 0]), isrr);
    expect(check.ok).toBe(false);
    expect(check.reason).toMatch(
      /within \d+ mm of the base axis, inside the shoulder's singular cylinder \(159 mm\)/,
    );
  });
});

describe('force limit', () => {
  const withSlider = (mass: number, friction: number): Scene => ({
    ...isrr,
    table: { ...isrr.table, friction: 0 },
    sliders: [{ ...isrr.sliders[0]!, mass, friction }],
  });

  it('refuses a slider too heavy for the 150 N limit (the scene limits: 50 kg, friction 5), naming the fix', () => {
    const check = forceLimitCheck(withSlider(50, 5));
    expect(check.ok).toBe(false);
    expect(check.reason).toMatch(/object needs 2453 N to slide, over 75 N/);
    expect(check.fix).toMatch(/lighter object/);
  });

  it('takes half the limit: 75 N of sliding friction passes, just more does not', () => {
    const at = 75 / 9.81;
    expect(forceLimitCheck(withSlider(at, 1)).ok).toBe(true);
    expect(forceLimitCheck(withSlider(at * 1.01, 1)).ok).toBe(false);
    expect(forceLimitCheck(isrr).ok).toBe(true);
  });
});
