/** A table estimate as motion capture would give it now for a state the test holds (pusher scenes). */
import { performance } from 'node:perf_hooks';
import type { Scene } from '#contract/scene';
import { layoutForScene, type State } from '#contract/state';
import { tableEstimate, type TableEstimate } from '../../src-main/mocap/state-estimator';

export function seenTable(scene: Scene, x: State): TableEstimate {
  const layout = layoutForScene(scene);
  return tableEstimate(
    layout,
    {
      pusher: { id: 'pusher', rigidBody: 'pusher', pose: { x: x[0]!, y: x[1]!, theta: 0 } },
      sliders: scene.sliders.map((s, i) => ({
        id: s.id,
        rigidBody: s.rigidBody ?? null,
        pose: layout.sliderPose(x, i),
      })),
    } as never,
    performance.now() / 1000,
  );
}
