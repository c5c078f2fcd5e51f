/**
 * The gripper in the fine model (physics/gripper-mjcf.ts, fine-model.ts) and the pusher's layout
 * and rollouts left as they were.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSceneFile } from '../../src-main/common/config-files';
import type { Scene } from '#contract/scene';
import { initialState, layoutForScene } from '#contract/state';
import { TaskGeometry } from '../../src-main/planning/task-geometry';
import { FineModel } from '#physics/fine-model';

const scenes = path.resolve(import.meta.dirname, '../../resources/scenes');
const clutter = loadSceneFile(path.join(scenes, 'wafr-clutter.json'));
/** The clutter scene's gripper with one box 15 cm ahead of its grasp centre, turned by 0.3 rad. */
const oneBox: Scene = {
  ...clutter,
  sliders: [{ ...clutter.sliders[0]!, pose: { x: -0.15, y: 0, theta: 0.3 } }],
};

describe('gripper state layout', () => {
  it('holds x, y, yaw, opening and their velocities, and wraps the yaw', () => {
    const L = layoutForScene(oneBox);
    expect(L.robotDofs).toBe(4);
    expect(L.size).toBe(8 + 6);
    expect(L.names.slice(0, 4)).toEqual(['gripper.x', 'gripper.y', 'gripper.yaw', 'gripper.opening']);
    expect(L.names.slice(7, 11)).toEqual(['gripper.vx', 'gripper.vy', 'gripper.omega', 'gripper.vopening']);
    expect(L.angleIndices).toEqual([2, 6]);
    const a = L.create();
    const b = L.create();
    a[2] = 3.1;
    b[2] = -3.1;
    expect(L.difference(a, b)[2]).toBeCloseTo(6.2 - 2 * Math.PI, 12);
  });

  it('round-trips through the fine model (write, read), the gripper bit for bit', async () => {
    const fine = await FineModel.create(oneBox);
    try {
      const L = fine.layout;
      const x = initialState(oneBox);
      L.setRobot(x, [-0.21, 0.033, -2.5, 0.071], [0.02, -0.01, 0.3, -0.04]);
      L.setSlider(x, 0, { x: -0.05, y: 0.02, theta: 1.2 }, { vx: 0.01, vy: 0, omega: -0.2 });
      fine.writeState(x);
      const y = fine.readState();
      // The gripper's entries exactly; the slider's angle passes through a quaternion (1 ulp).
      for (const j of [0, 1, 2, 3, 7, 8, 9, 10]) expect(y[j]).toBe(x[j]);
      y.forEach((v, j) => expect(v).toBeCloseTo(x[j]!, 14));
    } finally {
      fine.dispose();
    }
  });
});

describe('gripper in the fine model', () => {
  let fine: FineModel;
  beforeAll(async () => {
    fine = await FineModel.create(oneBox);
  });
  afterAll(() => fine.dispose());

  it('follows its four velocity commands', () => {
    const L = fine.layout;
    // Away from the box: no contact.
    const x0 = initialState(oneBox);
    const x1 = fine.step(x0, [-0.05, 0.04, 0.5, -0.05], 1);
    const p = L.gripperPose(x1);
    expect(p.x - -0.3).toBeCloseTo(-0.05, 3);
    expect(p.y).toBeCloseTo(0.04, 3);
    expect(p.yaw).toBeCloseTo(0.5, 2);
    expect(p.opening).toBeCloseTo(0.09, 3);
  });

  it('refuses a control of the wrong length', () => {
    expect(() => fine.step(initialState(oneBox), [0.05, 0], 1)).toThrow(/4 entries, got 2/);
  });

  it('drives the open gripper over a box, closes and holds it: a grasp', () => {
    const g = new TaskGeometry(oneBox);
    let x = initialState(oneBox);
    for (let k = 0; k < 2; k++) x = fine.step(x, [0.075, 0, 0, 0], 1);
    expect(g.assess(x).success).toBe(false);
    expect(g.hand(x)!.withinFingers).toBe(true);
    x = fine.step(x, [0, 0, 0, -0.1], 1);
    expect(g.assess(x)).toEqual({ success: true, failure: null, detail: null });
    // Held: it turns and moves with the gripper.
    x = fine.step(x, [0.05, 0.05, 0.5, -0.05], 1);
    expect(g.assess(x).success).toBe(true);
    x = fine.step(x, [0, 0, 0, 0.1], 1);
    expect(g.assess(x).success).toBe(false);
  });
});

describe('pusher scenes are unchanged', () => {
  it('keep the layout [pusher x, y, sliders..., pusher vx, vy, sliders...]', () => {
    const scene = loadSceneFile(path.join(scenes, 'isrr-obstacle.json'));
    const L = layoutForScene(scene);
    expect(L.robotDofs).toBe(2);
    expect(L.names).toEqual([
      'pusher.x',
      'pusher.y',
      'object.x',
      'object.y',
      'object.theta',
      'pusher.vx',
      'pusher.vy',
      'object.vx',
      'object.vy',
      'object.omega',
    ]);
    expect(L.angleIndices).toEqual([4]);
  });

  it('roll out as before the gripper, bit for bit', async () => {
    const scene = loadSceneFile(path.join(scenes, 'isrr-obstacle.json'));
    const fine = await FineModel.create(scene);
    try {
      let x = initialState(scene);
      for (const u of [
        [0.05, 0],
        [0.05, 0.02],
        [0.03, -0.01],
      ])
        x = fine.step(x, u, 1);
      // Recorded with the fine model of the commit before the gripper (same MJCF, same code path).
      expect(Array.from(x)).toEqual([
        -0.17026619107446367, 0.01004750846571173, -0.10925658789880574, -0.013503451420255037,
        -0.13951643734029046, 0.029908339257835245, -0.009965053847124539, 0.029761185349042818,
        -0.011103456335782788, 0.0008949357725272665,
      ]);
    } finally {
      fine.dispose();
    }
  });
});
