/**
 * Initial states for experiment scenes, sampled as the papers did, from a seeded stream:
 * - isrr-obstacle (ISRR 2019 fn. 3): pusher and slider share one y, uniform in
 *   [-halfRange, halfRange], so the straight push from the start to the goal hits the obstacle;
 * - wafr-lower-end (WAFR 2018 Sec. 7.1, fn. 1-2): the object on the table's long axis, offset from
 *   the lower end plus Gaussian noise (standard deviation `std`, see task-file.ts) on both
 *   coordinates, the pusher just behind it; with `object`, the object itself (box or cylinder,
 *   its dimensions, mass and friction) is drawn for every environment (sampleScene);
 * - wafr-point: the same about a named start point, for tables whose lower end is not on the
 *   x axis (the L-shaped table of WAFR Fig. 6);
 * - jitter (CVS 2020): every slider's position moved uniformly by up to halfRange, re-drawn until
 *   no two bodies overlap, nothing has failed and the goal is not already reached;
 * - layout (CVS 2020): the whole layout drawn afresh, the pusher behind the goal object
 *   (layout-sampling.ts);
 * - clutter (WAFR 2018 Sec. 7.2): a whole scene of boxes and cylinders around a target for the
 *   gripper (clutter.ts).
 */
import { pusherRadius } from '#contract/end-effector/registry';
import type { Scene, Shape } from '#contract/scene';
import { sampleClutterScene } from './clutter';
import { sampleLayout } from './layout-sampling';
import { sampleObject } from './object-sampling';
import { sceneSchema } from '#contract/scene';
import { initialState, layoutForScene, type State } from '#contract/state';
import { deriveSeed, Rng } from '../common/rng';
import type { Sampling } from '../planning/task-file';
import { TaskGeometry } from '../planning/task-geometry';
import { overlap } from '#physics/geometry2d';

/** One experiment environment: the scene (its goal object possibly drawn afresh) and its start state. */
export interface SampledScene {
  scene: Scene;
  x0: State;
}

/**
 * The environment of one experiment scene index: with WAFR object sampling, a scene whose goal
 * object (shape, size, mass, friction) is drawn from the seed and whose poses are the sampled
 * start; otherwise the task's scene itself. The object comes from a stream of its own
 * (deriveSeed(seed, 'object')), so the start position of a seed is the same with or without it.
 */
export function sampleScene(scene: Scene, sampling: Sampling, seed: number): SampledScene {
  if (sampling.kind === 'clutter') {
    const drawn = sampleClutterScene(scene, sampling, seed);
    return { scene: drawn, x0: initialState(drawn) };
  }
  if ((sampling.kind !== 'wafr-lower-end' && sampling.kind !== 'wafr-point') || !sampling.object)
    return { scene, x0: sampleInitialState(scene, sampling, seed) };
  const goal = scene.sliders.findIndex((s) => s.id === scene.goal.slider);
  const object = sampleObject(sampling.object, deriveSeed(seed, 'object'));
  const withObject: Scene = {
    ...scene,
    sliders: scene.sliders.map((s, i) => (i === goal ? { ...s, ...object } : s)),
  };
  const x0 = sampleInitialState(withObject, sampling, seed);
  const pose = layoutForScene(withObject).sliderPose(x0, goal);
  // The scene's object starts where it was drawn. Its pusher position stays the file's: runs
  // start from x0, whose pusher (5 mm behind the object) can hang a few centimetres over the
  // lower edge when a large object is drawn near it, as a gripper may (it never touches the
  // table), where a scene's pusher must lie on the table.
  const sampled: Scene = {
    ...withObject,
    sliders: withObject.sliders.map((s, i) => (i === goal ? { ...s, pose } : s)),
  };
  // Ranges in a task file are checked against the scene's physical bounds here, not silently used.
  const checked = sceneSchema.safeParse(sampled);
  if (!checked.success)
    throw new Error(
      `scene "${scene.name}", seed ${seed}: the sampled object is not a valid scene object (${checked.error.issues[0]?.path.join('.')}: ${checked.error.issues[0]?.message})`,
    );
  return { scene: sampled, x0 };
}

/** Half the shape's extent along the table's x axis at yaw 0 (how far its back face is behind its centre). */
function halfLengthX(shape: Shape): number {
  return shape.kind === 'cylinder' ? shape.radius : shape.sizeX / 2;
}

export function sampleInitialState(scene: Scene, sampling: Sampling, seed: number): State {
  const rng = new Rng(seed);
  const L = layoutForScene(scene);
  const g = new TaskGeometry(scene);
  const x = initialState(scene);
  const goal = g.goalIndex;
  const slider = scene.sliders[goal]!;
  // The pusher starts 5 mm behind the goal object on the push axis.
  const gap = (): number =>
    pusherRadius(scene, `sampling "${sampling.kind}"`) + halfLengthX(slider.shape) + 0.005;
  switch (sampling.kind) {
    case 'isrr-obstacle': {
      const y = rng.between(-sampling.halfRange, sampling.halfRange);
      const pose = L.sliderPose(x, goal);
      L.setSlider(x, goal, { ...pose, y });
      L.setPusher(x, x[0]!, y);
      return x;
    }
    case 'wafr-lower-end':
    case 'wafr-point': {
      const mean =
        sampling.kind === 'wafr-point'
          ? sampling.start
          : { x: -scene.table.size.x / 2 + sampling.offset, y: 0 };
      const sx = mean.x + sampling.std * rng.normal();
      const sy = mean.y + sampling.std * rng.normal();
      L.setSlider(x, goal, { x: sx, y: sy, theta: 0 });
      L.setPusher(x, sx - gap(), sy);
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
    case 'layout':
      return sampleLayout(scene, sampling, seed);
    case 'clutter':
      // sampleScene draws the whole scene, start included (clutter.ts).
      return initialState(scene);
  }
}

function feasibleStart(g: TaskGeometry, x: State): boolean {
  const n = g.layout.sliderCount;
  for (let i = 0; i < n; i++) {
    if (g.placedRobot(x).some((part) => overlap(part, g.placedSlider(x, i)).depth > 0)) return false;
    for (let j = i + 1; j < n; j++)
      if (overlap(g.placedSlider(x, i), g.placedSlider(x, j)).depth > 0) return false;
  }
  const a = g.assess(x);
  return !a.success && a.failure === null;
}
