/**
 * A stochastic execution on a fine model (TAMPC's samples, a fine job with `noise`), step for step
 * what the execution world does from a reset: the controls one after another without a reset
 * between them, then `noise.rest` seconds with the robot commanded to stand still, the drawn
 * values added to the velocities before every MuJoCo step (contract/worker-protocol.ts). One state
 * after each control, and one after the rest when there is one.
 */
import type { JobNoise } from '#contract/worker-protocol';
import type { Control, State } from '#contract/state';
import type { FineModel } from './fine-model';

/**
 * Runs the phases in order on `advance`, which runs one phase (its control, duration and noise
 * values from an offset), returns the next phase's offset and the state after it.
 */
export function noisyPhases(
  controls: readonly Control[],
  dt: number,
  noise: JobNoise,
  robotDofs: number,
  advance: (u: Control, dt: number, values: Float64Array, from: number) => { next: number; state: State },
): State[] {
  const states: State[] = [];
  let used = 0;
  for (const u of controls) {
    const r = advance(u, dt, noise.controlNoise, used);
    used = r.next;
    states.push(r.state);
  }
  let restUsed = 0;
  if (noise.rest > 0) {
    const r = advance(new Array<number>(robotDofs).fill(0), noise.rest, noise.restNoise, 0);
    restUsed = r.next;
    states.push(r.state);
  }
  if (used !== noise.controlNoise.length || restUsed !== noise.restNoise.length)
    throw new Error(
      `noise of ${noise.controlNoise.length} + ${noise.restNoise.length} values for ${used} + ${restUsed} perturbations`,
    );
  return states;
}

/** The stochastic execution with every object simulated. */
export function runNoisy(
  fine: FineModel,
  x: State,
  controls: readonly Control[],
  dt: number,
  noise: JobNoise,
): State[] {
  fine.writeState(x);
  return noisyPhases(controls, dt, noise, fine.layout.robotDofs, (u, t, values, from) => {
    let i = from;
    fine.advanceNoisy(u, t, values.length > 0 ? 1 : 0, () => values[i++]!);
    return { next: i, state: fine.readState() };
  });
}
