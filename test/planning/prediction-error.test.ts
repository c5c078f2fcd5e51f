/**
 * The planner's prediction error per executed control (planning/prediction-error.ts), as the MPC
 * loop reports it: the plan's predicted end state of the control sent against the state observed
 * at its end.
 */
import { describe, expect, it } from 'vitest';
import { initialState, type State } from '#contract/state';
import type { Control } from '#contract/state';
import { runMpc } from '../../src-main/planning/mpc-loop';
import { predictionError, type PredictionError } from '../../src-main/planning/prediction-error';
import { geometry, KinematicPlanner, KinematicPlant, scene } from '../helpers/kinematic-mpc';

const L = geometry.layout;

/** A table that carries the object `drift` m along +y on every control: what the plan does not know. */
class DriftingPlant extends KinematicPlant {
  constructor(
    x: State,
    private readonly drift: number,
  ) {
    super(x);
  }
  override async execute(u: Control, dt: number): Promise<State[]> {
    await super.execute(u, dt);
    const p = L.sliderPose(this.x, 0);
    L.setSlider(this.x, 0, { ...p, y: p.y + this.drift });
    return [this.observe()];
  }
}

async function errorsOf(drift: number): Promise<PredictionError[]> {
  const errors: PredictionError[] = [];
  const dt = 0.1;
  await runMpc({
    plant: new DriftingPlant(initialState(scene), drift),
    planner: new KinematicPlanner(dt),
    geometry,
    controlDuration: dt,
    maxActions: 4,
    timeLimit: 1e6,
    workers: 1,
    theoreticalSpeedup: null,
    onPredictionError: (e) => errors.push(e),
  });
  return errors;
}

describe('prediction error', () => {
  it('is each executed control’s miss: the drift the plan did not predict, per step and per object', async () => {
    const errors = await errorsOf(0.002);
    expect(errors.map((e) => e.step)).toEqual([0, 1, 2, 3]);
    for (const e of errors) {
      expect(e.position).toBeCloseTo(0.002, 9);
      expect(e.objects).toEqual([{ id: L.sliderIds[0], position: e.position, yaw: e.yaw }]);
    }
  });

  it('is zero when the table does what the plan predicts', async () => {
    const errors = await errorsOf(0);
    expect(errors).toHaveLength(4);
    for (const e of errors) expect(e.position).toBeLessThan(1e-12);
  });

  it('measures yaw the short way round', () => {
    const a = initialState(scene);
    const b = Float64Array.from(a);
    L.setSlider(a, 0, { ...L.sliderPose(a, 0), theta: Math.PI - 0.01 });
    L.setSlider(b, 0, { ...L.sliderPose(b, 0), theta: -Math.PI + 0.02 });
    expect(predictionError(L, 0, a, b).yaw).toBeCloseTo(0.03, 9);
  });
});
