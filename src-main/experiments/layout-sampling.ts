/**
 * Layouts of a multi-object pushing scene drawn afresh for every experiment scene (CVS 2020
 * Sec. 5, Fig. 1: the goal object, the pusher behind it and the other cylinders wherever the lab
 * set them down), so a result covers layouts rather than small moves of one.
 */
import { pusherRadius } from '#contract/end-effector/registry';
import type { Scene } from '#contract/scene';
import { initialState, type State } from '#contract/state';
import { footprintReach, overlap, type Placed } from '#physics/geometry2d';
import { Rng } from '../common/rng';
import { TaskGeometry } from '../planning/task-geometry';
import type { LayoutSampling } from '../planning/task-file';

/** Draws of one body's position before the layout is declared to have no room for it. */
const PLACEMENT_ATTEMPTS = 2000;

/**
 * The goal object first (uniform in `target`), the pusher 5 mm behind it on the line from the goal
 * so the first push can head straight for the goal, then every other slider in scene order
 * (uniform in `others`), each drawn again until it keeps `clearance` from every body placed before
 * it and, wholly, from the goal region. Yaws stay the scene's (the paper's objects are cylinders).
 */
export function sampleLayout(scene: Scene, sampling: LayoutSampling, seed: number): State {
  const rng = new Rng(seed);
  const g = new TaskGeometry(scene);
  const L = g.layout;
  const x = initialState(scene);
  const radius = pusherRadius(scene, 'sampling "layout"');
  const draw = (r: LayoutSampling['target']) => ({ x: rng.between(...r.x), y: rng.between(...r.y) });
  const placed: Placed[] = [];
  const fits = (body: Placed): boolean => placed.every((p) => overlap(p, body).depth <= -sampling.clearance);

  const goal = g.goalIndex;
  const targetReach = footprintReach(g.sliders[goal]!);
  const behind = targetReach + radius + 0.005;
  const place = (i: number, ok: (body: Placed) => boolean): void => {
    const theta = scene.sliders[i]!.pose.theta;
    for (let attempt = 0; attempt < PLACEMENT_ATTEMPTS; attempt++) {
      const p = i === goal ? draw(sampling.target) : draw(sampling.others);
      const body: Placed = { footprint: g.sliders[i]!, ...p, theta };
      if (!ok(body)) continue;
      L.setSlider(x, i, { ...p, theta });
      placed.push(body);
      return;
    }
    throw new Error(
      `scene "${scene.name}", seed ${seed}: no room for ${L.sliderIds[i]} after ${PLACEMENT_ATTEMPTS} draws`,
    );
  };

  place(goal, (body) => {
    const toGoal = Math.hypot(g.goal.x - body.x, g.goal.y - body.y);
    const px = body.x - (behind * (g.goal.x - body.x)) / toGoal;
    const py = body.y - (behind * (g.goal.y - body.y)) / toGoal;
    if (!g.table.contains(px, py)) return false;
    L.setPusher(x, px, py);
    placed.push(...g.placedRobot(x));
    return true;
  });
  scene.sliders.forEach((_, i) => {
    if (i === goal) return;
    const clear = g.goal.radius + footprintReach(g.sliders[i]!) + sampling.clearance;
    place(i, (body) => fits(body) && Math.hypot(body.x - g.goal.x, body.y - g.goal.y) >= clear);
  });
  return x;
}
