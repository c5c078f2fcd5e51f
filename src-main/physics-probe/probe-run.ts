/**
 * An identification run: a short supervised run whose planner plays the probing pushes
 * (probe-planner.ts) instead of planning a task. It is a run like any other: the same pre-flight
 * checks, arming, supervisor in the safety thread and session log (its executed controls, the
 * observed poses, the robot's states and each control's predicted end state), which the physics
 * fit (docs/physics-fit.md) then reads. A pusher scene only: a gripper is not probed.
 */
import { controlLimits, endEffectorOf } from '#contract/end-effector/registry';
import type { Task } from '../planning/task-file';
import type { ModelRequest } from '../parareal/model-choice';
import { supervisedRun, type SupervisedRunOptions, type SupervisedRunResult } from '../run/supervised-run';
import { ProbePlanner } from './probe-planner';
import { DEFAULT_PROBE_PUSHES, type ProbePush } from './probe-pushes';

/** Controls an identification run may take at most: the approaches and pushes of a long script. */
const PROBE_ACTIONS = 400;
/**
 * s the arm holds still after each control: the fit reads the table at rest between controls as
 * the mean of the poses logged over this rest (15 at the log's 30 Hz), a quarter of one frame's
 * camera noise.
 */
export const PROBE_REST = 0.5;

export interface ProbeRunResult {
  run: SupervisedRunResult;
  /** Indices of the pushes done, and of those left out (no clear way where the object stood). */
  done: number[];
  skipped: number[];
  pushes: readonly ProbePush[];
}

/**
 * The task an identification run takes from the scene's: its control duration and prediction
 * settings, synchronous (each push is planned from the state observed at its start), with room
 * for every push.
 */
export function probeTask(task: Task): Task {
  return {
    ...task,
    planner: {
      ...task.planner,
      loopMode: 'synchronous',
      maxExecutedActions: PROBE_ACTIONS,
      timeLimit: Math.max(task.planner.timeLimit, 600),
    },
  };
}

/** Why a gripper scene cannot be probed. */
export const PROBE_NEEDS_PUSHER = 'an identification run probes with a pusher; this scene has a gripper';

/**
 * What makes a supervised run an identification run: its task (probeTask), the fine model (each
 * push's end is predicted with it alone: one job a control) and the probing planner; `planner()`
 * is the planner once the run has made it (its pushes done and left out).
 */
export function probeRunParts(
  task: Task,
  pushes: readonly ProbePush[] = DEFAULT_PROBE_PUSHES,
): {
  task: Task;
  model: ModelRequest;
  pushes: readonly ProbePush[];
  planner: NonNullable<SupervisedRunOptions['planner']>;
  restAfterAction: number;
  made(): ProbePlanner | undefined;
} {
  const probe = probeTask(task);
  let made: ProbePlanner | undefined;
  return {
    task: probe,
    model: { kind: 'fine' },
    pushes,
    planner: ({ geometry, pool, scene }) =>
      (made = new ProbePlanner({
        geometry,
        pushes,
        controlDuration: probe.planner.controlDuration,
        maxSpeed: controlLimits(scene).maxSpeed,
        pool,
        predictionScene: scene,
      })),
    restAfterAction: PROBE_REST,
    made: () => made,
  };
}

export async function probeRun(
  o: Omit<SupervisedRunOptions, 'task' | 'model' | 'planner'> & { task: Task; pushes?: readonly ProbePush[] },
): Promise<ProbeRunResult> {
  if (endEffectorOf(o.link.scene).discRadius === undefined) throw new Error(PROBE_NEEDS_PUSHER);
  const parts = probeRunParts(o.task, o.pushes);
  const run = await supervisedRun({
    ...o,
    task: parts.task,
    model: parts.model,
    planner: parts.planner,
    restAfterAction: parts.restAfterAction,
  });
  const planner = parts.made();
  return { run, done: planner?.done ?? [], skipped: planner?.skipped ?? [], pushes: parts.pushes };
}
