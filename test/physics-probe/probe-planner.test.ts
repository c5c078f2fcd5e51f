/**
 * The identification run's planner (physics-probe/) in the MPC loop on a table where the pusher
 * shoves a disc it touches (no MuJoCo, no lab): the approaches never touch the object, each push
 * moves it about the push's distance, the script's end ends the run, and the pushes keep clear of
 * obstacles and the table's edge.
 */
import { describe, expect, it } from 'vitest';
import { initialState, type State } from '#contract/state';
import type { Scene } from '#contract/scene';
import type { FinePool } from '../../src-main/parareal/fine-pool';
import type { Control } from '#contract/state';
import { runMpc } from '../../src-main/planning/mpc-loop';
import { TaskGeometry } from '../../src-main/planning/task-geometry';
import type { Plant } from '../../src-main/planning/plant';
import { ProbePlanner } from '../../src-main/physics-probe/probe-planner';
import {
  contactReach,
  DEFAULT_PROBE_PUSHES,
  PROBE_CLEARANCE,
  probeDirection,
} from '../../src-main/physics-probe/probe-pushes';
import { referenceScene } from '../helpers/scenes';

const scene: Scene = { ...referenceScene('isrr-obstacle'), obstacles: [] };
const geometry = new TaskGeometry(scene);
const L = geometry.layout;
const reach = contactReach(geometry);

/** Moves the pusher; a disc it would overlap is shoved out along the line of centres. Records the object's path per control. */
class ShovingPlant implements Plant {
  readonly objectMoves: number[] = [];
  constructor(public x: State) {}
  observe(): State {
    return Float64Array.from(this.x);
  }
  async execute(u: Control, dt: number): Promise<State[]> {
    const before = L.sliderPose(this.x, 0);
    for (let k = 0; k < 100; k++) {
      const [px, py] = L.pusherPosition(this.x);
      const p = { x: px + (u[0]! * dt) / 100, y: py + (u[1]! * dt) / 100 };
      L.setPusher(this.x, p.x, p.y);
      const s = L.sliderPose(this.x, 0);
      const d = Math.hypot(s.x - p.x, s.y - p.y);
      if (d < reach)
        L.setSlider(this.x, 0, {
          ...s,
          x: p.x + ((s.x - p.x) / d) * reach,
          y: p.y + ((s.y - p.y) / d) * reach,
        });
    }
    const after = L.sliderPose(this.x, 0);
    this.objectMoves.push(Math.hypot(after.x - before.x, after.y - before.y));
    return [this.observe()];
  }
}

/** Predicts that nothing moves: the loop only needs a state. */
const stillPool = {
  registerScene: () => 'scene',
  run: async (job: { x: State }) => ({
    id: 0,
    states: [job.x],
    seconds: 0,
    cpu: 0,
    steps: 0,
    solverIterations: 0,
  }),
} as unknown as FinePool;

describe('the probing planner', () => {
  it('approaches without touching, pushes each push its distance, and ends the run when played', async () => {
    const plant = new ShovingPlant(initialState(scene));
    const planner = new ProbePlanner({
      geometry,
      pushes: DEFAULT_PROBE_PUSHES,
      controlDuration: 0.5,
      maxSpeed: 0.1,
      pool: stillPool,
      predictionScene: scene,
    });
    const summary = await runMpc({
      plant,
      planner,
      geometry,
      controlDuration: 0.5,
      maxActions: 400,
      timeLimit: 1e6,
      workers: 1,
      theoreticalSpeedup: null,
    });
    expect(summary).toMatchObject({ outcome: 'success', detail: 'every scripted push done' });
    expect(planner.done).toEqual(DEFAULT_PROBE_PUSHES.map((_, i) => i));
    expect(planner.skipped).toEqual([]);
    // The object moved only while pushed: the moves add up to the pushes' distances (a shoved
    // disc goes as far as the pusher beyond contact; off-centre ones a little less).
    const moved = plant.objectMoves.reduce((a, b) => a + b, 0);
    const pushed = DEFAULT_PROBE_PUSHES.reduce((a, p) => a + p.distance, 0);
    expect(moved).toBeLessThan(pushed + 0.005);
    expect(moved).toBeGreaterThan(0.6 * pushed);
  });

  it('never pushes towards an obstacle or off the table', () => {
    const withObstacle: Scene = referenceScene('isrr-obstacle');
    const g = new TaskGeometry(withObstacle);
    const x = initialState(withObstacle);
    // The object 20 cm left of the obstacle: pushing it right (+x) would come within the clearance.
    const o = withObstacle.obstacles[0]!.pose;
    L.setSlider(x, 0, { x: o.x - 0.2, y: o.y, theta: 0 });
    // Wanted: straight on towards the obstacle (the way back to a home beyond it).
    const d = probeDirection(
      g,
      x,
      { offset: 0, distance: 0.06, speed: 0.05, turn: 0 },
      { x: o.x + 0.2, y: o.y },
    );
    expect(d).not.toBeNull();
    const s = g.layout.sliderPose(x, 0);
    const disc = g.obstacleDiscs(PROBE_CLEARANCE)[0]!;
    for (let t = 0; t <= 0.12; t += 0.01)
      expect(Math.hypot(s.x + d![0] * t - disc.x, s.y + d![1] * t - disc.y)).toBeGreaterThanOrEqual(disc.r);
  });
});
