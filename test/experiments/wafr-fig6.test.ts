/**
 * The WAFR 2018 Fig. 6 tasks (wafr-changing, wafr-l-shape): the task files load with the paper's
 * costs and the Fig. 5 tasks' settings, and every scene index draws its object and start
 * reproducibly, about the task's start point, on the table.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { deriveSeed } from '../../src-main/common/rng';
import { sceneSchema } from '#contract/scene';
import { layoutForScene } from '#contract/state';
import { tableRegion } from '#contract/table-region';
import { sampleScene } from '../../src-main/experiments/initial-states';
import { sceneSeed } from '../../src-main/experiments/runner';
import { TaskGeometry } from '../../src-main/planning/task-geometry';
import {
  actionCap,
  loadTaskFile,
  TaskFileError,
  WAFR_OBJECT_RANGES,
} from '../../src-main/planning/task-file';
import { MAX_ACTIONS } from '#contract/safety-limits';
import { repoRoot } from '../helpers/scenes';

const taskFile = (name: string) => path.join(repoRoot, 'resources/tasks', `${name}.json`);
const reference = loadTaskFile(taskFile('wafr-high-accuracy')).task;
const tasks = [
  { name: 'wafr-changing', start: { x: -0.45, y: 0 } },
  { name: 'wafr-l-shape', start: { x: -0.2, y: -0.19 } },
].map((t) => ({ ...t, ...loadTaskFile(taskFile(t.name)) }));

type PlannerSettings = typeof reference.planner;
/**
 * The planner settings a Fig. 6 task shares with the Fig. 5 tasks. wafr-l-shape draws K = 14
 * rollouts, not 8 (with K = 8 its success fell on the scenes checked), and keeps 0.1 m/s MPC
 * candidates; its predictions are the others' real-time Euler 5 ms.
 */
function comparable(name: string, p: PlannerSettings): Partial<PlannerSettings> {
  if (name !== 'wafr-l-shape') return p;
  const { optimizer, fastSpeed: _fastSpeed, ...rest } = p;
  return { ...rest, optimizer: { ...optimizer, rollouts: 0 } };
}

describe.each(tasks)('$name', ({ name, start, task, scene }) => {
  const draws = Array.from({ length: 200 }, (_, i) => {
    const seed = deriveSeed(sceneSeed(1, i), 'start');
    return { seed, ...sampleScene(scene, task.sampling, seed) };
  });

  it('loads its scene (named as the task, so the console finds the task) with an outline', () => {
    expect(task.name).toBe(name);
    expect(scene.name).toBe(name);
    expect(scene.table.outline).toBeDefined();
    expect(tableRegion(scene.table).contains(scene.goal.center.x, scene.goal.center.y)).toBe(true);
  });

  it("has the paper's costs and the Fig. 5 tasks' planner, noise and object ranges", () => {
    expect(task.costs).toEqual(reference.costs);
    expect(task.execution).toEqual(reference.execution);
    expect(comparable(name, task.planner)).toEqual(comparable(name, reference.planner));
    // WAFR's only run limit is its 3 minutes (Sec. 7.1): no action cap.
    expect(task.planner).toMatchObject({ kind: 'tampc', timeLimit: 180, maxExecutedActions: null });
    expect(actionCap(task.planner)).toBe(MAX_ACTIONS);
    if (task.sampling.kind !== 'wafr-lower-end' && task.sampling.kind !== 'wafr-point')
      throw new Error(`unexpected sampling ${task.sampling.kind}`);
    expect(task.sampling.std).toBe(0.01);
    expect(task.sampling.object).toMatchObject(WAFR_OBJECT_RANGES);
  });

  it('draws the same scene and start for a seed, and different ones for different seeds', () => {
    for (const d of draws.slice(0, 10)) {
      const again = sampleScene(scene, task.sampling, d.seed);
      expect(again.scene).toEqual(d.scene);
      expect(again.x0).toEqual(d.x0);
    }
    expect(draws[0]!.x0).not.toEqual(draws[1]!.x0);
  });

  it('starts the object about its start point, on the table, nothing failed yet', () => {
    const L = layoutForScene(scene);
    const mean = { x: 0, y: 0 };
    for (const { scene: drawn, x0 } of draws) {
      expect(sceneSchema.safeParse(drawn).success).toBe(true);
      const p = L.sliderPose(x0, 0);
      mean.x += p.x / draws.length;
      mean.y += p.y / draws.length;
      expect(new TaskGeometry(drawn).assess(x0)).toEqual({ success: false, failure: null, detail: null });
      // The pusher starts behind the object on the push axis (+x).
      expect(x0[0]).toBeLessThan(p.x);
      expect(x0[1]).toBe(p.y);
    }
    expect(mean.x).toBeCloseTo(start.x, 2);
    expect(mean.y).toBeCloseTo(start.y, 2);
  });
});

describe('wafr-point sampling', () => {
  it('refuses a start point off the table, naming the field', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'task-'));
    const raw = JSON.parse(readFileSync(taskFile('wafr-l-shape'), 'utf8'));
    const file = path.join(dir, 'notch.json');
    writeFileSync(
      file,
      JSON.stringify({
        ...raw,
        scene: path.join(repoRoot, 'resources/scenes/wafr-l-shape.json'),
        sampling: { ...raw.sampling, start: { x: -0.1, y: 0.1 } },
      }),
    );
    expect(() => loadTaskFile(file)).toThrow(TaskFileError);
    expect(() => loadTaskFile(file)).toThrow(/sampling\.start: is off the table of scene "wafr-l-shape"/);
  });
});
