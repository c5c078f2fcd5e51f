/**
 * The WAFR 2018 environments (Sec. 7.1, footnotes 1-2): the shipped task files, the per-scene
 * object and start position drawn from the seed, and the models that must honour the drawn object.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sampleInitialState, sampleScene } from '../../src-main/experiments/initial-states';
import { sceneSeed } from '../../src-main/experiments/runner';
import { SCENE_LIMITS } from '#contract/safety-limits';
import { sceneSchema, type Scene } from '#contract/scene';
import { layoutForScene } from '#contract/state';
import { deriveSeed } from '../../src-main/common/rng';
import { TaskGeometry } from '../../src-main/planning/task-geometry';
import { loadTaskFile, parseTask, WAFR_OBJECT_RANGES } from '../../src-main/planning/task-file';
import { AnalyticalCoarseModel } from '#physics/coarse-model';
import { FineModel } from '#physics/fine-model';
import { overlap } from '#physics/geometry2d';
import { sceneToMjcf } from '#physics/mjcf';
import { repoRoot } from '../helpers/scenes';

const tasks = ['wafr-low-accuracy', 'wafr-high-accuracy'].map((name) =>
  loadTaskFile(path.join(repoRoot, 'resources/tasks', `${name}.json`)),
);
const low = tasks[0]!;

const goalSlider = (scene: Scene) => scene.sliders.find((s) => s.id === scene.goal.slider)!;
const inRange = (v: number, [lo, hi]: readonly [number, number]) => v >= lo && v <= hi;

describe('WAFR task files', () => {
  it.each(tasks.map((t) => [t.task.name, t] as const))(
    '%s loads, validates and draws the paper environment',
    (_name, { task, scene }) => {
      expect(sceneSchema.safeParse(scene).success).toBe(true);
      expect(task.sampling).toMatchObject({ kind: 'wafr-lower-end', offset: 0.1, std: 0.01 });
      if (task.sampling.kind !== 'wafr-lower-end') throw new Error('unreachable');
      const o = task.sampling.object!;
      expect([...o.shapes].sort()).toEqual(['box', 'cylinder']);
      for (const [k, range] of Object.entries(WAFR_OBJECT_RANGES))
        expect(o[k as keyof typeof WAFR_OBJECT_RANGES]).toEqual(range);
      // Fast pushes: one control reaches the goal within the speed limit; UAMPC's are slow.
      expect(task.planner.tampc.minActions).toBe(1);
      expect(task.planner.tampc.maxActions).toBeGreaterThanOrEqual(task.planner.horizon);
      expect(scene.limits.maxPusherSpeed).toBeLessThanOrEqual(SCENE_LIMITS.maxPusherSpeed);
      const start = -scene.table.size.x / 2 + 0.1;
      const toGoal = Math.hypot(scene.goal.center.x - start, scene.goal.center.y);
      expect(toGoal / task.planner.controlDuration).toBeLessThan(scene.limits.maxPusherSpeed);
      expect(toGoal / (task.planner.tampc.maxActions * task.planner.controlDuration)).toBeLessThan(0.1);
      // MPC is the paper's standard MPC (Sec. 6): quasi-static sequences only, no full-speed ones.
      expect(task.planner.fastSpeed).toBe(task.planner.initialSpeed);
    },
  );

  it('rejects object ranges that are reversed or outside the scene bounds', () => {
    const raw = {
      name: 't',
      scene: 's.json',
      costs: [{ term: 'action', cost: 0.05 }],
      execution: { noise: { kind: 'action-proportional', slope: 0.075 } },
    };
    const bad = { kind: 'wafr-lower-end', object: { mass: [0.8, 0.2] } };
    expect(() => parseTask({ ...raw, sampling: bad })).toThrow(/sampling\.object\.mass.*lower bound/s);
    // Defaults are the paper's ranges.
    const t = parseTask({ ...raw, sampling: { kind: 'wafr-lower-end', object: {} } });
    expect(t.sampling.kind === 'wafr-lower-end' && t.sampling.object).toMatchObject(WAFR_OBJECT_RANGES);
    // A heavier object than the scene schema allows is caught when the scene is drawn.
    const heavy = parseTask({ ...raw, sampling: { kind: 'wafr-lower-end', object: { mass: [60, 70] } } });
    expect(() => sampleScene(low.scene, heavy.sampling, 1)).toThrow(/sliders\.0\.mass/);
  });
});

describe('WAFR environment sampler', () => {
  const draws = Array.from({ length: 300 }, (_, i) => {
    const seed = deriveSeed(sceneSeed(1, i), 'start');
    return { seed, ...sampleScene(low.scene, low.task.sampling, seed) };
  });

  it('is deterministic per seed (scene index) and differs between seeds', () => {
    for (const d of draws.slice(0, 20)) {
      const again = sampleScene(low.scene, low.task.sampling, d.seed);
      expect(again.scene).toEqual(d.scene);
      expect(again.x0).toEqual(d.x0);
    }
    expect(goalSlider(draws[0]!.scene)).not.toEqual(goalSlider(draws[1]!.scene));
  });

  it('draws both shapes, every value within the paper ranges, as valid scenes', () => {
    const R = WAFR_OBJECT_RANGES;
    const kinds = new Set<string>();
    for (const { scene } of draws) {
      expect(sceneSchema.safeParse(scene).success).toBe(true);
      const s = goalSlider(scene);
      kinds.add(s.shape.kind);
      expect(inRange(s.mass, R.mass)).toBe(true);
      expect(inRange(s.friction, R.friction)).toBe(true);
      if (s.shape.kind === 'box') {
        expect(inRange(s.shape.sizeX, R.boxSize) && inRange(s.shape.sizeY, R.boxSize)).toBe(true);
        expect(inRange(s.shape.height, R.boxHeight)).toBe(true);
      } else {
        expect(inRange(s.shape.radius, R.cylinderRadius)).toBe(true);
        expect(inRange(s.shape.height, R.cylinderHeight)).toBe(true);
      }
    }
    expect([...kinds].sort()).toEqual(['box', 'cylinder']);
    const boxes = draws.filter((d) => goalSlider(d.scene).shape.kind === 'box').length;
    expect(boxes / draws.length).toBeGreaterThan(0.4);
    expect(boxes / draws.length).toBeLessThan(0.6);
  });

  it('puts the object 0.1 m from the lower end with a 0.01 m standard deviation, the pusher just behind', () => {
    const L = layoutForScene(low.scene);
    const xs: number[] = [];
    const ys: number[] = [];
    for (const { scene, x0 } of draws) {
      const p = L.sliderPose(x0, 0);
      xs.push(p.x);
      ys.push(p.y);
      // The scene's object pose is the sampled start (its pusher may hang over the lower edge).
      expect(goalSlider(scene).pose).toEqual(p);
      expect(x0[0]).toBeGreaterThan(-0.3 - 0.05);
      const g = new TaskGeometry(scene);
      const gap = -overlap(g.placedRobot(x0)[0]!, g.placedSlider(x0, 0)).depth;
      expect(gap).toBeCloseTo(0.005, 6);
      expect(x0[0]).toBeLessThan(p.x);
      expect(g.assess(x0)).toEqual({ success: false, failure: null, detail: null });
    }
    const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
    const std = (v: number[]) => Math.sqrt(mean(v.map((a) => (a - mean(v)) ** 2)));
    expect(mean(xs)).toBeCloseTo(-0.2, 2);
    expect(mean(ys)).toBeCloseTo(0, 2);
    for (const v of [xs, ys]) {
      expect(std(v)).toBeGreaterThan(0.008);
      expect(std(v)).toBeLessThan(0.012);
    }
  });

  it('keeps the start of a seed whether or not the object is drawn, and the scene when it is not', () => {
    if (low.task.sampling.kind !== 'wafr-lower-end') throw new Error('unreachable');
    const plain = { ...low.task.sampling, object: undefined };
    for (const d of draws.slice(0, 10)) {
      const p = sampleScene(low.scene, plain, d.seed);
      expect(p.scene).toBe(low.scene);
      expect(p.x0).toEqual(sampleInitialState(low.scene, plain, d.seed));
      const L = layoutForScene(low.scene);
      const a = L.sliderPose(p.x0, 0);
      const b = L.sliderPose(d.x0, 0);
      expect([a.x, a.y]).toEqual([b.x, b.y]);
    }
  });
});

describe('the models take the drawn object from the scene', () => {
  const box = sampleFirst('box');
  const cylinder = sampleFirst('cylinder');

  function sampleFirst(kind: 'box' | 'cylinder') {
    for (let i = 0; ; i++) {
      const d = sampleScene(low.scene, low.task.sampling, i);
      if (goalSlider(d.scene).shape.kind === kind) return d;
    }
  }

  it('the fine model (MJCF) has its shape, mass and friction', () => {
    for (const { scene } of [box, cylinder]) {
      const s = goalSlider(scene);
      const size =
        s.shape.kind === 'box'
          ? `type="box" size="${s.shape.sizeX / 2} ${s.shape.sizeY / 2} ${s.shape.height / 2}"`
          : `type="cylinder" size="${s.shape.radius} ${s.shape.height / 2}"`;
      expect(sceneToMjcf(scene)).toContain(`${size} mass="${s.mass}" friction="${s.friction} `);
    }
  });

  it('a 1 s push moves the object by the pusher travel less the 5 mm gap, in the fine and coarse models', async () => {
    for (const { scene, x0 } of [box, cylinder]) {
      const L = layoutForScene(scene);
      const before = L.sliderPose(x0, 0).x;
      const coarse = new AnalyticalCoarseModel(scene).step(x0, 0.1, 0, 1);
      expect(L.sliderPose(coarse, 0).x - before).toBeCloseTo(0.095, 3);
      const fine = await FineModel.create(scene);
      try {
        const after = fine.step(x0, [0.1, 0], 1);
        expect(L.sliderPose(after, 0).x - before).toBeGreaterThan(0.09);
        expect(L.sliderPose(after, 0).x - before).toBeLessThan(0.1);
      } finally {
        fine.dispose();
      }
    }
  });
});
