/**
 * Initial states for experiment scenes, sampled as the papers did, from a seeded stream:
 * - isrr-obstacle (ISRR 2019 fn. 3): pusher and slider share one y, uniform in
 *   [-halfRange, halfRange], so the straight push from the start to the goal hits the obstacle;
 * - wafr-lower-end (WAFR 2018 fn. 2): the object on the table's long axis, offset from the lower
 *   end plus Gaussian noise (std) on both coordinates, the pusher just behind it;
 * - jitter (CVS 2020): every slider's position moved uniformly by up to halfRange, re-drawn until
 *   no two bodies overlap, nothing has failed and the goal is not already reached.
 */
import type { Scene } from '../contract/scene';
import { boundingRadius } from '../contract/scene';
import { initialState, layoutForScene, type State } from '../contract/state';
import { Rng } from '../common/rng';
import type { Sampling } from '../planning/task-file';
import { TaskGeometry } from '../planning/outcome';
import { overlap } from '../../src-workers/physics/geometry2d';

export function sampleInitialState(scene: Scene, sampling: Sampling, seed: number): State {
  const rng = new Rng(seed);
  const L = layoutForScene(scene);
  const g = new TaskGeometry(scene);
  const x = initialState(scene);
  const goal = g.goalIndex;
  const slider = scene.sliders[goal]!;
  const gap = scene.pusher.radius + boundingRadius(slider.shape) + 0.005;
  switch (sampling.kind) {
    case 'isrr-obstacle': {
      const y = rng.between(-sampling.halfRange, sampling.halfRange);
      const pose = L.sliderPose(x, goal);
      L.setSlider(x, goal, { ...pose, y });
      L.setPusher(x, x[0]!, y);
      return x;
    }
    case 'wafr-lower-end': {
      const sx = -scene.table.size.x / 2 + sampling.offset + sampling.std * rng.normal();
      const sy = sampling.std * rng.normal();
      L.setSlider(x, goal, { x: sx, y: sy, theta: 0 });
      L.setPusher(x, sx - gap, sy);
      return x;
    }
    case 'jitter': {
      for (let attempt = 0; attempt < 1000; attempt++) {
        const s = initialState(scene);
        scene.sliders.forEach((sl, i) => {
          L.setSlider(s, i, {
            x: sl.pose.x + rng.between(-sampling.halfRange, sampling.halfRange),
            y: sl.pose.y + rng.between(-sampling.halfRange, sampling.halfRange),
            theta: sl.pose.theta,
          });
        });
        if (feasibleStart(g, s)) return s;
      }
      throw new Error(`could not sample a start without overlaps for scene "${scene.name}"`);
    }
  }
}

function feasibleStart(g: TaskGeometry, x: State): boolean {
  const n = g.layout.sliderCount;
  for (let i = 0; i < n; i++) {
    if (overlap(g.placedPusher(x), g.placedSlider(x, i)).depth > 0) return false;
    for (let j = i + 1; j < n; j++)
      if (overlap(g.placedSlider(x, i), g.placedSlider(x, j)).depth > 0) return false;
  }
  const a = g.assess(x);
  return !a.success && a.failure === null;
}
