/**
 * Test doubles for the planner: a kinematic rollout (pusher and goal object move together with
 * the commanded velocity), so optimizer, MPC and TAMPC tests run without MuJoCo.
 */
import type { State, StateLayout } from '#contract/state';
import { type Control } from '#contract/state';
import type { BatchRollout } from '../../src-main/planning/rollout';

export function kinematicStep(L: StateLayout, x: State, u: Control, dt: number, slider = 0): State {
  const out = Float64Array.from(x);
  out[0] = x[0]! + u[0]! * dt;
  out[1] = x[1]! + u[1]! * dt;
  const o = L.posOffset(slider);
  out[o] = x[o]! + u[0]! * dt;
  out[o + 1] = x[o + 1]! + u[1]! * dt;
  return out;
}

/** A batched rollout of kinematicStep; `seen` records every batch it was given. */
export function kinematicRollout(L: StateLayout, dt = 1, seen: Control[][][] = []): BatchRollout {
  return (x0, sequences) => {
    seen.push(sequences.map((s) => s.map((u) => [u[0], u[1]] as Control)));
    const trajectories = sequences.map((seq) => {
      const states = [x0];
      for (const u of seq) states.push(kinematicStep(L, states[states.length - 1]!, u, dt));
      return states;
    });
    return Promise.resolve({
      trajectories,
      iterates: trajectories.map((t) => [t]),
      changes: trajectories.map(() => []),
      wallTime: 0,
      work: { cpu: 0, steps: 0, solverIterations: 0 },
    });
  };
}
