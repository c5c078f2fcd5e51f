/**
 * Grasping in clutter: what counts as a grasp (planning/grasp.ts through TaskGeometry.assess), the
 * grasp cost L_f = d_T^2 + w_phi phi_T^2, the gripper's approaches and closing reflex, and the
 * 4-input control space validated against the scene with errors naming the field.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseControls } from '../../src-main/cli/controls';
import { loadSceneFile } from '../../src-main/common/config-files';
import { controlLimits } from '#contract/end-effector/registry';
import type { Scene } from '#contract/scene';
import { initialState, type Control, type State } from '#contract/state';
import { FinePool } from '../../src-main/parareal/fine-pool';
import { assertModelFitsRobot } from '../../src-main/parareal/predictor';
import { clampControl, controlMagnitude } from '../../src-main/planning/control-space';
import { gripperParts, partCorners } from '#contract/gripper-geometry';
import { TrajectoryCost } from '../../src-main/planning/costs/trajectory-cost';
import { approachLane, approachTarget, closeOnTarget } from '../../src-main/planning/gripper-plans';
import { TaskGeometry } from '../../src-main/planning/task-geometry';
import { candidateSequences } from '../../src-main/planning/tampc/tampc-planner';
import {
  checkTaskFitsScene,
  loadTaskFile,
  parseTask,
  TaskFileError,
} from '../../src-main/planning/task-file';
import { createTaskRun } from '../../src-main/planning/task-run';
import { fineJobSchema } from '#contract/worker-protocol';

const resources = path.resolve(import.meta.dirname, '../../resources');
const { task, scene: clutter } = loadTaskFile(path.join(resources, 'tasks/wafr-clutter.json'));
/** Box of 60 x 60 mm, the target; the gripper's fingers are 90 mm long, its stroke 140 mm. */
const scene: Scene = { ...clutter, sliders: [clutter.sliders[0]!] };
const g = new TaskGeometry(scene);
const L = g.layout;

/** The target at (0, 0, theta 0) and the gripper at (x, y, yaw) with `opening`. */
function state(gripper: { x: number; y: number; yaw: number; opening: number }): State {
  const x = initialState(scene);
  L.setRobot(x, [gripper.x, gripper.y, gripper.yaw, gripper.opening]);
  L.setSlider(x, 0, { x: 0, y: 0, theta: 0 });
  return x;
}

describe('grasp success', () => {
  it('succeeds with the target between closed fingers touching it from both sides', () => {
    // Fingers' inner faces at +-30 mm, the box's faces too (a 0.5 mm squeeze counts as touch).
    expect(g.assess(state({ x: 0, y: 0, yaw: 0, opening: 0.059 }))).toEqual({
      success: true,
      failure: null,
      detail: null,
    });
    // From another side, the box a little off the grasp centre along the fingers.
    expect(g.assess(state({ x: 0, y: 0.005, yaw: Math.PI / 2, opening: 0.06 })).success).toBe(true);
  });

  it('does not succeed with open fingers, with the target outside them, or with one finger off it', () => {
    expect(g.assess(state({ x: 0, y: 0, yaw: 0, opening: 0.1 })).success).toBe(false);
    // Closed, but the target is ahead of the fingertips.
    expect(g.assess(state({ x: -0.08, y: 0, yaw: 0, opening: 0.06 })).success).toBe(false);
    // Shifted sideways: one finger in the box, the other 10 mm off it.
    expect(g.assess(state({ x: 0, y: 0.01, yaw: 0, opening: 0.07 })).success).toBe(false);
  });

  it('knows when the target is in the hand, ready to close on', () => {
    expect(g.hand(state({ x: 0, y: 0, yaw: 0, opening: 0.14 }))!.withinFingers).toBe(true);
    const reflex = closeOnTarget(g, controlLimits(scene), 1);
    expect(reflex(state({ x: 0, y: 0, yaw: 0, opening: 0.14 }))).toEqual({ u: [0, 0, 0, -0.1], duration: 1 });
    expect(reflex(state({ x: -0.2, y: 0, yaw: 0, opening: 0.14 }))).toBeNull();
    expect(reflex(state({ x: 0, y: 0, yaw: 0, opening: 0.059 }))).toBeNull();
    // The pusher has no hand.
    const pusherScene = loadSceneFile(path.join(resources, 'scenes/wafr-wide-table.json'));
    expect(new TaskGeometry(pusherScene).hand(initialState(pusherScene))).toBeNull();
  });
});

describe('grasp cost (WAFR 2018 Sec. 5)', () => {
  const cost = (w: number) => new TrajectoryCost([{ term: 'grasp', weight: 1, angleWeight: w }], g);

  it('is d_T^2 from the palm front face, plus w_phi phi_T^2', () => {
    // Gripper 0.2 m behind the target, facing it: the palm's front face is half a finger length
    // (45 mm) further back, d_T = 0.245 m, phi_T = 0.
    const half = scene.gripper!.finger.length / 2;
    expect(cost(0.5).final(state({ x: -0.2, y: 0, yaw: 0, opening: 0.14 }))).toBeCloseTo(
      (0.2 + half) ** 2,
      12,
    );
    // Turned 90 degrees away: phi_T = -pi/2 from the palm front face, now at (-0.2, -0.045).
    const turned = state({ x: -0.2, y: 0, yaw: Math.PI / 2, opening: 0.14 });
    const d2 = 0.2 ** 2 + half ** 2;
    const phi = Math.atan2(half, 0.2) - Math.PI / 2;
    expect(cost(0.5).final(turned)).toBeCloseTo(d2 + 0.5 * phi ** 2, 12);
  });

  it('refuses a pusher scene', () => {
    const pusherScene = loadSceneFile(path.join(resources, 'scenes/wafr-wide-table.json'));
    expect(
      () => new TrajectoryCost([{ term: 'grasp', weight: 1, angleWeight: 1 }], new TaskGeometry(pusherScene)),
    ).toThrow(/needs a gripper scene/);
  });
});

describe('hand-clear cost', () => {
  /** The target box at the origin and a 50 mm cylinder (object1 of the scene file) at `other`. */
  const two: Scene = { ...clutter, sliders: [clutter.sliders[0]!, clutter.sliders[1]!] };
  const g2 = new TaskGeometry(two);
  const at = (other: { x: number; y: number }): State => {
    const x = initialState(two);
    g2.layout.setRobot(x, [0, 0, 0, 0.14]);
    g2.layout.setSlider(x, 0, { x: 0.5, y: 0, theta: 0 });
    g2.layout.setSlider(x, 1, { ...other, theta: 0 });
    return x;
  };
  const cost = new TrajectoryCost([{ term: 'hand-clear', weight: 5, depth: 0.01 }], g2);
  // Charged on the state a control ends in.
  const charge = (next: State): number => cost.step(at({ x: 1, y: 1 }), next, [0, 0, 0, 0], [0, 0, 0, 0]);

  it('charges the full weight per control for another object 10 mm or more into the hand', () => {
    // The hand spans x in [-45, 45] mm, y in [-70, 70] mm; the cylinder (r = 50 mm) at y = 0.
    expect(g2.othersInHand(at({ x: 0, y: 0 }))[0]).toBeGreaterThan(0.05);
    expect(charge(at({ x: 0, y: 0 }))).toBeCloseTo(5, 12);
    // Its edge 5 mm past the fingertips' line: half the weight.
    expect(charge(at({ x: 0.045 + 0.05 - 0.005, y: 0 }))).toBeCloseTo(2.5, 9);
    // Clear of the hand, and the target itself never counts.
    expect(charge(at({ x: 0.2, y: 0 }))).toBe(0);
    expect(g2.othersInHand(at({ x: 0.2, y: 0 }))).toEqual([0]);
  });
});

describe('gripper candidates', () => {
  const limits = controlLimits(scene);
  const far = state({ x: -0.3, y: 0.1, yaw: 0, opening: 0.06 });
  const sum = (u: Control[], j: number): number => u.reduce((a, c) => a + c[j]!, 0);

  it('approach the target along a clear lane, turn along it and open, within the limits', () => {
    const lane = approachLane(g, far);
    expect(lane.blocked).toBe(0);
    expect(lane.transitBlocked).toBe(0);
    const u = approachTarget(g, far, { n: 4, dt: 1, limits });
    expect(u).toHaveLength(4);
    // It ends at the target, facing along the lane, fingers fully open.
    expect(sum(u, 0)).toBeCloseTo(0.3, 9);
    expect(sum(u, 1)).toBeCloseTo(-0.1, 9);
    expect(sum(u, 2)).toBeCloseTo(lane.heading, 9);
    expect(sum(u, 3)).toBeCloseTo(0.08, 12);
    for (const c of u) expect(clampControl(c, limits)).toEqual(c);
  });

  it('go round an object on the straight line, with the fingers closed while passing it', () => {
    // A 50 mm cylinder 0.2 m before the target on the straight line from the gripper.
    const two: Scene = { ...clutter, sliders: [clutter.sliders[0]!, clutter.sliders[1]!] };
    const g2 = new TaskGeometry(two);
    const x = initialState(two);
    g2.layout.setRobot(x, [-0.3, 0, 0, 0.14]);
    g2.layout.setSlider(x, 0, { x: 0, y: 0, theta: 0 });
    g2.layout.setSlider(x, 1, { x: -0.2, y: 0, theta: 0 });
    const lane = approachLane(g2, x);
    expect(lane.blocked).toBe(0);
    expect(Math.abs(lane.heading)).toBeCloseTo(Math.PI / 3, 12);
    expect(lane.inLane).toBe(false);
    // The way to the pre-grasp point passes the cylinder: the fingers close first, and are
    // fully open again by the end.
    expect(lane.transitBlocked).toBeGreaterThan(0);
    const u = approachTarget(g2, x, { n: 8, dt: 1, limits });
    expect(u[0]![3]).toBeCloseTo(-limits.maxOpeningSpeed!, 12);
    expect(sum(u, 3)).toBeCloseTo(0, 9);
    expect(sum(u, 0)).toBeCloseTo(0.3, 9);
    expect(sum(u, 1)).toBeCloseTo(0, 9);
    // Without the cylinder the straight line wins and the fingers only open.
    const alone = state({ x: -0.3, y: 0, yaw: 0, opening: 0.14 });
    expect(approachLane(g, alone)).toMatchObject({ heading: 0, inLane: true, blocked: 0, transitBlocked: 0 });
    expect(approachTarget(g, alone, { n: 8, dt: 1, limits }).every((c) => c[3] === 0)).toBe(true);
  });

  it('keep the open hand 30 mm inside the table at the pre-grasp point, where a lab lets it go', () => {
    // The target 100 mm from the table's +y edge (at 0.3 m), the gripper straight behind it: the
    // straight lane would put the palm's corner at y = 0.285, past the lab's 0.27.
    const x = state({ x: -0.3, y: 0.2, yaw: 0, opening: 0.14 });
    L.setSlider(x, 0, { x: 0.1, y: 0.2, theta: 0 });
    const lane = approachLane(g, x);
    expect(lane.heading).toBeGreaterThan(0.1);
    const hand = gripperParts(scene.gripper!, { ...lane.pregrasp, yaw: lane.heading, opening: 0.14 });
    for (const [cx, cy] of hand.flatMap(partCorners)) {
      expect(Math.abs(cx)).toBeLessThanOrEqual(0.4 - 0.03 + 1e-12);
      expect(Math.abs(cy)).toBeLessThanOrEqual(0.3 - 0.03 + 1e-12);
    }
  });

  it('run from fast (n_min controls) to slow (n_max) as TAMPC asks', () => {
    const c = candidateSequences(g, far, {
      candidates: 3,
      minActions: 1,
      maxActions: 8,
      controlDuration: 1,
      ...limits,
    });
    expect(c.map((s) => s.length)).toEqual([1, 5, 8]);
    for (const seq of c) for (const u of seq) expect(u).toHaveLength(4);
    // The fast one goes round no corner: its one control reaches the pre-grasp point (the next
    // step's plan goes in), and the slowest arrives at the target.
    const lane = approachLane(g, far);
    expect(lane.inLane).toBe(false);
    expect(c[0]![0]![0]).toBeCloseTo(lane.pregrasp.x + 0.3, 9);
    expect(c[0]![0]![1]).toBeCloseTo(lane.pregrasp.y - 0.1, 9);
    expect(sum(c[2]!, 0)).toBeCloseTo(0.3, 9);
    expect(sum(c[2]!, 1)).toBeCloseTo(-0.1, 9);
  });
});

describe('the 4-input control space', () => {
  const limits = controlLimits(scene);

  it('clamps the translation, the yaw rate and the opening speed to their limits', () => {
    expect(clampControl([0.6, 0.8, -5, 0.3], limits)).toEqual([0.3, 0.4, -1, 0.1]);
    expect(clampControl([0.3, 0.4], { maxSpeed: 0.25 })).toEqual([0.15, 0.2]);
    expect(() => clampControl([0, 0, 1, 0], { maxSpeed: 0.1 })).toThrow(/gripper limits/);
  });

  it('combines the four inputs into the speed of a point of the gripper for the noise', () => {
    expect(controlMagnitude([0.03, 0.04])).toBeCloseTo(0.05, 15);
    const gripper = [1, 1, 0.1, 1 / 2];
    expect(controlMagnitude([0, 0, 2, 0], gripper)).toBeCloseTo(0.2, 15);
    expect(controlMagnitude([0, 0, 0, 0.1], gripper)).toBeCloseTo(0.05, 15);
    expect(() => controlMagnitude([0, 0, 1, 0])).toThrow(/speed scales/);
  });

  it('validates a task against its scene, naming the field', () => {
    const fit =
      (t: unknown, s: Scene): (() => void) =>
      () =>
        checkTaskFitsScene(parseTask(t), s, 'task.json');
    const json = structuredClone(task) as unknown as {
      planner: { optimizer: { explorationVariance: unknown } };
    };
    json.planner.optimizer.explorationVariance = [1e-4, 1e-4];
    expect(fit(json, scene)).toThrow(TaskFileError);
    expect(fit(json, scene)).toThrow(
      /planner\.optimizer\.explorationVariance: has 2 values; the control space of the Parallel gripper has 4 inputs \(vx, vy, yaw rate, opening speed\)/,
    );
    json.planner.optimizer.explorationVariance = 1e-4;
    expect(fit(json, scene)).toThrow(
      /planner\.optimizer\.explorationVariance: the Parallel gripper's inputs differ in units/,
    );
    json.planner.optimizer.explorationVariance = [1e-4, 1e-4, 1e-2, 1e-4, 1];
    expect(() => parseTask(json)).toThrow(/planner\.optimizer\.explorationVariance/);
    // The clutter task's grasp term and sampling on a pusher scene.
    const pusherScene = loadSceneFile(path.join(resources, 'scenes/wafr-wide-table.json'));
    const onPusher = structuredClone(task) as unknown as {
      planner: { optimizer: { explorationVariance: unknown } };
    };
    onPusher.planner.optimizer.explorationVariance = [1e-4, 1e-4];
    expect(fit(onPusher, pusherScene)).toThrow(/costs\.4\.term: the grasp term needs a gripper scene/);
    expect(fit(onPusher, pusherScene)).toThrow(/costs\.5\.term: the hand-clear term needs a gripper scene/);
    expect(fit(onPusher, pusherScene)).toThrow(/sampling\.kind: clutter sampling needs a gripper scene/);
    expect(fit(task, scene)).not.toThrow();
  });

  it('checks command-line controls against the robot, naming the entry', () => {
    expect(parseControls('[[0.05,0,0.5,-0.05]]', scene)).toEqual([[0.05, 0, 0.5, -0.05]]);
    expect(() => parseControls('[[0.05,0]]', scene)).toThrow(/\[vx, vy, yaw rate, opening speed\]/);
    expect(() => parseControls('[[0.05,0,0,0],[0,0,2,0]]', scene)).toThrow(
      /--controls\[1\]\[2\]: yaw rate 2 rad\/s/,
    );
    expect(() => parseControls('[[0,0,0,0.2]]', scene)).toThrow(/--controls\[0\]\[3\]: opening speed/);
  });

  it('carries 4-input controls to the workers and refuses longer ones', () => {
    const job = { id: 1, sceneKey: 'k', x: initialState(scene), dt: 1 };
    expect(fineJobSchema.safeParse({ ...job, controls: [[0, 0, 0, 0]] }).success).toBe(true);
    expect(fineJobSchema.safeParse({ ...job, controls: [[0, 0, 0, 0, 0]] }).success).toBe(false);
  });

  it('plans a gripper with the fine model only', async () => {
    expect(() => assertModelFitsRobot(scene, { kind: 'parareal' })).toThrow(
      /its robot is the Parallel gripper, which the coarse models \(analytical, learned\) and so Parareal do not model; choose the fine model/,
    );
    expect(() => assertModelFitsRobot(scene, { kind: 'fine' })).not.toThrow();
    const pool = new FinePool({ workers: 1 });
    try {
      await expect(createTaskRun({ task, scene, pool, model: { kind: 'coarse' }, seed: 1 })).rejects.toThrow(
        /choose the fine model, not coarse/,
      );
      const auto = await createTaskRun({ task, scene, pool, model: { kind: 'auto' }, seed: 1 });
      expect(auto.model).toEqual({ kind: 'fine' });
    } finally {
      await pool.close();
    }
  });
});
