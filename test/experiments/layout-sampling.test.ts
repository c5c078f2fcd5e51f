/**
 * cvs-multi-object's sampled layouts (CVS 2020 Sec. 5): every scene a new layout inside the task's
 * rectangles, bodies apart, the other sliders outside the goal region, the pusher behind the goal
 * object facing the goal; and the task field checked on load.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sampleScene } from '../../src-main/experiments/initial-states';
import { sceneSeed } from '../../src-main/experiments/runner';
import { TaskGeometry } from '../../src-main/planning/task-geometry';
import { loadTaskFile, parseTask } from '../../src-main/planning/task-file';
import { footprintReach, overlap } from '#physics/geometry2d';
import { repoRoot } from '../helpers/scenes';

const taskFile = path.join(repoRoot, 'resources/tasks/cvs-multi-object.json');
const { task, scene } = loadTaskFile(taskFile);
if (task.sampling.kind !== 'layout') throw new Error('cvs-multi-object samples layouts');
const sampling = task.sampling;
const g = new TaskGeometry(scene);
const L = g.layout;
const inRange = (v: number, [lo, hi]: readonly [number, number]) => v >= lo && v <= hi;
const starts = Array.from({ length: 60 }, (_, i) => sampleScene(scene, sampling, sceneSeed(1, i)).x0);

describe('layout sampling (cvs-multi-object)', () => {
  it('places every body inside its rectangle, apart, with no failure and the goal not yet reached', () => {
    for (const x of starts) {
      L.sliderIds.forEach((_, i) => {
        const p = L.sliderPose(x, i);
        const r = i === g.goalIndex ? sampling.target : sampling.others;
        expect(inRange(p.x, r.x) && inRange(p.y, r.y)).toBe(true);
        expect(p.theta).toBe(scene.sliders[i]!.pose.theta);
        if (i !== g.goalIndex)
          expect(g.goalDistance(x, i)).toBeGreaterThanOrEqual(
            g.goal.radius + footprintReach(g.sliders[i]!) + sampling.clearance - 1e-12,
          );
        // The pusher stands 5 mm behind the goal object and `clearance` from every other one.
        const robotGap = i === g.goalIndex ? 0.005 : sampling.clearance;
        for (const part of g.placedRobot(x))
          expect(overlap(part, g.placedSlider(x, i)).depth).toBeLessThanOrEqual(-robotGap + 1e-12);
        for (let j = i + 1; j < L.sliderCount; j++)
          expect(overlap(g.placedSlider(x, i), g.placedSlider(x, j)).depth).toBeLessThanOrEqual(
            -sampling.clearance + 1e-12,
          );
      });
      expect(g.assess(x)).toMatchObject({ success: false, failure: null });
    }
  });

  it('puts the pusher 5 mm behind the goal object on the line from the goal', () => {
    const radius = scene.pusher!.radius + footprintReach(g.sliders[g.goalIndex]!);
    for (const x of starts) {
      const t = L.sliderPose(x, g.goalIndex);
      const [px, py] = [x[0]!, x[1]!];
      expect(Math.hypot(px - t.x, py - t.y)).toBeCloseTo(radius + 0.005, 12);
      // The goal, the goal object and the pusher on one line, the object in the middle.
      const cross = (t.x - px) * (g.goal.y - py) - (t.y - py) * (g.goal.x - px);
      expect(Math.abs(cross)).toBeLessThan(1e-12);
      expect(g.goalDistance(x)).toBeLessThan(Math.hypot(px - g.goal.x, py - g.goal.y));
    }
  });

  it('draws whole layouts: positions spread over the rectangles, not jitters of one', () => {
    L.sliderIds.forEach((_, i) => {
      const r = i === g.goalIndex ? sampling.target : sampling.others;
      const xs = starts.map((x) => L.sliderPose(x, i).x);
      const ys = starts.map((x) => L.sliderPose(x, i).y);
      // 60 uniform draws cover well over half of each side (a 2 cm jitter would cover 4 cm).
      expect(Math.max(...xs) - Math.min(...xs)).toBeGreaterThan(0.6 * (r.x[1] - r.x[0]));
      expect(Math.max(...ys) - Math.min(...ys)).toBeGreaterThan(0.6 * (r.y[1] - r.y[0]));
    });
  });

  it('repeats a layout for the same seed', () => {
    expect(sampleScene(scene, sampling, sceneSeed(1, 3)).x0).toEqual(starts[3]);
    expect(sampleScene(scene, sampling, sceneSeed(2, 3)).x0).not.toEqual(starts[3]);
  });

  it('rejects a reversed range, an unknown field and a rectangle reaching off the table', () => {
    const raw = JSON.parse(JSON.stringify(task)) as Record<string, unknown>;
    const bad = (s: unknown) => ({ ...raw, sampling: s });
    expect(() => parseTask(bad({ ...sampling, target: { x: [0.1, -0.1], y: [0, 0] } }))).toThrow(
      /sampling\.target\.x.*lower bound/s,
    );
    expect(() => parseTask(bad({ ...sampling, spread: 1 }))).toThrow(/sampling/);
    const dir = mkdtempSync(path.join(tmpdir(), 'layout-'));
    const file = path.join(dir, 'task.json');
    writeFileSync(
      file,
      JSON.stringify({
        ...raw,
        scene: path.join(repoRoot, 'resources/scenes/cvs-multi-object.json'),
        sampling: { ...sampling, others: { x: [-0.1, 0.1], y: [-0.2, 0.35] } },
      }),
    );
    expect(() => loadTaskFile(file)).toThrow(/sampling\.others: reaches off the table/);
  });

  it('reports a layout with no room for a slider instead of overlapping it', () => {
    const tiny = { ...sampling, others: { x: [0, 0.01], y: [0, 0.01] } as typeof sampling.others };
    expect(() => sampleScene(scene, tiny, 1)).toThrow(/no room for other2/);
  });
});
