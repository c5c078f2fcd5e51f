/**
 * The reach tests' scene (physics/reach.ts, reach-culled-model.ts, noisy-run.ts): a lane on the
 * WAFR clutter table with two cylinders in the robot's way and the task's box out of it.
 */
import type { Scene, Slider } from '#contract/scene';
import { referenceScene } from './scenes';

export const clutter: Scene = referenceScene('wafr-clutter');

/** The clutter task's prediction setting (resources/tasks/wafr-clutter.json). */
export const clutterPrediction = { integrator: 'Euler', timestep: 0.005, sleep: true } as const;

/** A cylinder of the clutter table's objects, at rest at (x, y). */
export const cylinder = (id: string, x: number, y: number, radius = 0.04): Slider => ({
  ...clutter.sliders[1]!,
  id,
  rigidBody: id,
  shape: { kind: 'cylinder', radius, height: 0.045 },
  pose: { x, y, theta: 0 },
});

/**
 * The gripper at (-0.3, 0) facing +x, closed (its fingertips at x = -0.255, its body 0.17 m wide);
 * `near` 0.095 m ahead of the fingertips, `next` 0.02 m beyond `near`, the box in a corner; `fine`
 * is the prediction setting.
 */
export function clutterLane(fine: Scene['fine'] = clutterPrediction): Scene {
  return {
    ...clutter,
    gripper: { ...clutter.gripper!, opening: 0 },
    fine,
    sliders: [
      cylinder('near', -0.12, 0),
      cylinder('next', -0.02, 0),
      { ...clutter.sliders[0]!, pose: { x: 0.25, y: 0.2, theta: 0.4 } },
    ],
    goal: { ...clutter.goal, slider: clutter.sliders[0]!.id },
  };
}
