/**
 * An experiment's override of the task's WAFR noise level b (execution-world.ts): the level is
 * what WAFR 2018 Fig. 5 varies (none, low, medium, high = 0, 0.05, 0.075, 0.1), so a sweep runs
 * one experiment per level on the same task file. The task's noise model is the one place both
 * the execution world and the planner's own noise (TAMPC's and UAMPC's stochastic samples,
 * task-run.ts poolSampler) read it from, so replacing it there changes both.
 */
import type { Task } from '../planning/task-file';

export class NoiseSlopeError extends Error {}

/** The task with its action-proportional slope replaced by b; a task with other noise cannot take one. */
export function withNoiseSlope(task: Task, b: number): Task {
  const noise = task.execution.noise;
  if (noise.kind !== 'action-proportional')
    throw new NoiseSlopeError(
      `task ${task.name} has ${noise.kind} execution noise, not action-proportional: a noise slope applies to the WAFR tasks only`,
    );
  if (!(b >= 0) || !Number.isFinite(b))
    throw new NoiseSlopeError(`noise slope: expected a number >= 0, got ${b}`);
  return { ...task, execution: { ...task.execution, noise: { ...noise, slope: b } } };
}
