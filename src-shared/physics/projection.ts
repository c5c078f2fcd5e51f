/**
 * Projection of infeasible states (ISRR 2019 Sec. II-C). A Parareal update x = C_new + F_old - C_old
 * can leave bodies inside each other; contact dynamics is undefined there, so penetrating bodies
 * are moved apart along the contact normal by the penetration depth.
 *
 * Who moves: the pusher is driven by the robot, so against it only the slider moves (by the full
 * depth). Two sliders share the correction equally. Chains of overlaps (a slider pushed out of the
 * pusher into another slider) are resolved by sweeping over all pairs until none overlaps by more
 * than the tolerance. Obstacles take no part: they collide with nothing in the fine model either
 * (mjcf.ts), so a state inside one is a failure for the cost to see, not an infeasibility to hide.
 */
import { pusherRadius } from '#contract/end-effector/registry';
import type { Scene } from '#contract/scene';
import type { State, StateLayout } from '#contract/state';
import { footprintOf, overlap, type Footprint, type Placed } from './geometry2d';

export interface ProjectionOptions {
  /**
   * Overlaps up to this depth are left alone (m). MuJoCo's soft contacts rest with a sub-millimetre
   * overlap; moving those would perturb states that are already physically consistent.
   */
  tolerance: number;
  maxSweeps: number;
}

export const defaultProjectionOptions: ProjectionOptions = { tolerance: 5e-4, maxSweeps: 20 };

export interface ProjectionGeometry {
  pusher: Footprint;
  sliders: Footprint[];
}

export function projectionGeometry(scene: Scene): ProjectionGeometry {
  return {
    pusher: {
      kind: 'disc',
      radius: pusherRadius(scene, "the infeasible-state projection (Parareal's)"),
    },
    sliders: scene.sliders.map((s) => footprintOf(s.shape)),
  };
}

/**
 * Projects `state` in place to the nearest feasible state (up to the tolerance).
 * Returns the number of corrections applied (0: the state was already feasible and is untouched).
 */
export function projectFeasible(
  state: State,
  layout: StateLayout,
  geometry: ProjectionGeometry,
  options: ProjectionOptions = defaultProjectionOptions,
): number {
  const n = layout.sliderCount;
  const pusher: Placed = { footprint: geometry.pusher, x: state[0]!, y: state[1]!, theta: 0 };
  const placed = (i: number): Placed => {
    const o = layout.posOffset(i);
    return { footprint: geometry.sliders[i]!, x: state[o]!, y: state[o + 1]!, theta: state[o + 2]! };
  };
  const move = (i: number, dx: number, dy: number): void => {
    const o = layout.posOffset(i);
    state[o] = state[o]! + dx;
    state[o + 1] = state[o + 1]! + dy;
  };
  let corrections = 0;
  for (let sweep = 0; sweep < options.maxSweeps; sweep++) {
    let moved = false;
    for (let i = 0; i < n; i++) {
      const ov = overlap(pusher, placed(i));
      if (ov.depth > options.tolerance) {
        move(i, ov.nx * ov.depth, ov.ny * ov.depth);
        moved = true;
        corrections++;
      }
      for (let j = i + 1; j < n; j++) {
        const ov = overlap(placed(i), placed(j));
        if (ov.depth > options.tolerance) {
          const half = ov.depth / 2;
          move(i, -ov.nx * half, -ov.ny * half);
          move(j, ov.nx * half, ov.ny * half);
          moved = true;
          corrections++;
        }
      }
    }
    if (!moved) break;
  }
  return corrections;
}
