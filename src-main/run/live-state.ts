/**
 * The measured table state for the live view, from the lab's latest motion-capture poses in the
 * state layout of the scene (velocities zero: the view draws positions). Undefined while any bound
 * body has never been seen, so the view never draws a guess.
 */
import type { StateLayout } from '../contract/state';
import type { PlanarPoses } from '../mocap/scene-binding';

export function measuredState(layout: StateLayout, poses: PlanarPoses | undefined): number[] | undefined {
  if (!poses?.pusher.pose) return undefined;
  const x = layout.create();
  layout.setPusher(x, poses.pusher.pose.x, poses.pusher.pose.y);
  for (const [i, s] of poses.sliders.entries()) {
    if (!s.pose) return undefined;
    layout.setSlider(x, i, s.pose);
  }
  return Array.from(x);
}
