/**
 * A third tool added by one file (flat-pusher.ts, in this folder; no source file names it): the
 * scene names it, and the state layout, the MJCF, the fine model on the worker pool, the reach
 * bound, the planner and the supervisor's guard all take it from the registry. It then pushes an
 * object to the goal in the simulated execution world, planned with the fine model.
 */
import { afterAll, describe, expect, it } from 'vitest';
import './flat-pusher';
import { endEffectorOf } from '#contract/end-effector/registry';
import { sceneSchema, type Scene } from '#contract/scene';
import { initialState, layoutForScene } from '#contract/state';
import { FineModel } from '#physics/fine-model';
import { sceneToMjcf } from '#physics/mjcf';
import { reachableSliders } from '#physics/reach';
import { FinePool } from '../../../src-main/parareal/fine-pool';
import { ExecutionWorld } from '../../../src-main/planning/execution-world';
import { parseTask } from '../../../src-main/planning/task-file';
import { runTaskOn } from '../../../src-main/planning/task-run';
import { prePushPoint } from '../../../src-main/planning/push-heading';
import { approachAndPush } from '../../../src-main/planning/fresh-sequences';
import { TaskGeometry } from '../../../src-main/planning/task-geometry';
import { sceneGuardFor } from '../../../src-main/safety/scene-guard';

const scene: Scene = sceneSchema.parse({
  name: 'flat-push',
  table: { size: { x: 1, y: 0.8 }, friction: 0.8 },
  tool: {
    kind: 'flat-pusher',
    width: 0.12,
    depth: 0.02,
    height: 0.05,
    position: { x: -0.24, y: 0 },
  },
  sliders: [
    {
      id: 'box',
      shape: { kind: 'box', sizeX: 0.08, sizeY: 0.1, height: 0.05 },
      mass: 0.5,
      friction: 0.2,
      pose: { x: -0.16, y: 0, theta: 0 },
    },
  ],
  goal: { slider: 'box', center: { x: 0.02, y: 0 }, radius: 0.05 },
  limits: { maxPusherSpeed: 0.1 },
});

const task = parseTask({
  name: 'flat-push',
  scene: 'flat-push.json',
  costs: [
    { term: 'control-smoothness', weight: 10 },
    { term: 'goal-distance', weight: 100 },
    { term: 'failure', weight: 100 },
  ],
  planner: {
    kind: 'mpc',
    horizon: 3,
    controlDuration: 1,
    initialSpeed: 0.05,
    optimizer: {
      rollouts: 8,
      explorationVariance: 0.0001,
      update: { kind: 'greedy' },
      maxIterations: 1,
      costThreshold: 0,
    },
    maxExecutedActions: 8,
    timeLimit: 600,
  },
  execution: { noise: { kind: 'constant', variance: 0 } },
  sampling: { kind: 'jitter' },
});

const pool = new FinePool({ workers: 2 });
afterAll(() => pool.close());

describe('a flat pusher, a tool registered by one file', () => {
  it('is read from the scene and gives the state, the model and the guard their parts', async () => {
    const tool = endEffectorOf(scene);
    expect(tool.kind).toBe('flat-pusher');
    expect(layoutForScene(scene).names.slice(0, 2)).toEqual(['flatPusher.x', 'flatPusher.y']);
    expect(sceneToMjcf(scene)).toContain('<geom name="flat_pusher" type="box" size="0.01 0.06 0.025"');
    expect(sceneGuardFor(scene).robot?.outline).toHaveLength(4);
    // The fine model moves it as commanded: 0.05 m/s for 1 s in free space.
    const model = await FineModel.create(scene);
    try {
      const away = initialState({
        ...scene,
        sliders: [{ ...scene.sliders[0]!, pose: { x: 0.3, y: 0, theta: 0 } }],
      });
      const after = model.step(away, [0, 0.05], 1);
      expect(after[1]).toBeCloseTo(0.05, 3);
    } finally {
      model.dispose();
    }
    // The reach bound sweeps its body: a box 200 mm to the side is reached by a move towards it
    // at 0.1 m/s for 1 s, not by one away from it.
    const x = initialState(scene);
    layoutForScene(scene).setSlider(x, 0, { x: -0.24, y: 0.2, theta: 0 });
    expect(reachableSliders(scene, x, [0, 0.1], 1)).toEqual([true]);
    expect(reachableSliders(scene, x, [0, -0.1], 1)).toEqual([false]);
  });

  it('stands behind the object at contact, half its depth from the box, and goes round at its half diagonal', () => {
    // The box's front face is 40 mm behind its centre; the pusher's face 10 mm ahead of its own.
    const g = new TaskGeometry(scene);
    const { behind, contact, reach } = prePushPoint(g, initialState(scene));
    expect(contact).toBeCloseTo(Math.hypot(0.04, 0.05) + 0.01, 9);
    expect(behind.x).toBeCloseTo(-0.16 - contact, 9);
    expect(behind.y).toBeCloseTo(0, 9);
    expect(reach).toBeCloseTo(Math.hypot(0.04, 0.05) + Math.hypot(0.01, 0.06), 9);
  });

  it('pushes a disc it touches straight on instead of walking round it', () => {
    // The state a supervised run on the virtual lab planned from after its first push: the face
    // 0.1 mm from the disc, 0.2 mm off its axis (the run then walked round the disc and lost it).
    const disc = sceneSchema.parse({
      ...scene,
      sliders: [{ ...scene.sliders[0]!, shape: { kind: 'cylinder', radius: 0.05115, height: 0.0245 } }],
      goal: { ...scene.goal, center: { x: -0.02, y: 0 }, radius: 0.04 },
    });
    const g = new TaskGeometry(disc);
    const x = initialState(disc);
    x[0] = -0.1277;
    x[1] = -0.00022;
    g.layout.setSlider(x, 0, { x: -0.06647, y: -0.00005, theta: 0.00141 });
    const [first, second] = approachAndPush(g, x, 2, 0.05, 1);
    expect(first![0]).toBeCloseTo(0.05, 3);
    expect(second![0]).toBeCloseTo(0.05, 3);
  });

  it(
    'pushes the box to the goal, planned with the fine model on the workers',
    { timeout: 240_000 },
    async () => {
      const x0 = initialState(scene);
      const plant = await ExecutionWorld.create(scene, task.execution.noise, 1, x0);
      try {
        const summary = await runTaskOn({ task, scene, pool, model: { kind: 'auto' }, seed: 1, plant });
        expect(summary.outcome).toBe('success');
      } finally {
        plant.dispose();
      }
    },
  );
});
