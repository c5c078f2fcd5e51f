/**
 * Records a supervised run into its session log: everything the run saw (motion capture, robot
 * state), everything it sent (every command, as it left for the robot), every supervisor decision
 * and planner step, and the outcome. The recorder sits beside the run; it never changes what the
 * run does.
 */
import type { PlannerSettings } from '../contract/planner-settings';
import type { Scene } from '../contract/scene';
import type { PredictionModel, CoarseKind } from '../parareal/predictor';
import type { Task } from '../planning/task-file';
import type { SessionRecorder } from '../session/recorder';
import type { SupervisedRobot } from '../safety/supervisor';

/** The planner settings a task and model amount to, in the console's terms (for the log's settings channel). */
export function plannerSettingsOf(
  task: Task,
  scene: Scene,
  model: PredictionModel,
  coarse: CoarseKind,
): PlannerSettings {
  const p = task.planner;
  const parareal: PlannerSettings['parareal'] =
    model.kind === 'parareal' && model.tolerance
      ? {
          mode: 'adaptive',
          translationTolerance: model.tolerance.translation,
          rotationTolerance: model.tolerance.rotation,
          maxIterations: Math.max(1, model.iterations),
        }
      : {
          mode: 'iterations',
          iterations: model.kind === 'parareal' ? Math.max(1, Math.min(model.iterations, p.horizon)) : 1,
        };
  return {
    predictionModel: model.kind,
    parareal,
    slices: p.horizon,
    coarseModel: coarse,
    rollouts: p.optimizer.rollouts,
    horizon: p.horizon,
    controlDuration: p.controlDuration,
    explorationVariance: p.optimizer.explorationVariance,
    actionLimit: scene.limits.maxPusherSpeed,
    planner: p.kind === 'mpc' ? 'mpc' : 'tampc',
    maxExecutedActions: p.maxActions,
    prediction: { ...p.prediction },
    loopMode: p.mode,
  };
}

/** The robot as the supervisor sees it, with every command recorded as it is sent. */
export function recordedRobot(robot: SupervisedRobot, recorder: SessionRecorder): SupervisedRobot {
  return {
    get latest() {
      return robot.latest;
    },
    sendTwist(vx, vy, acceleration) {
      const seq = robot.sendTwist(vx, vy, acceleration);
      recorder.command('twist', seq, vx, vy, acceleration);
      return seq;
    },
    stop(acceleration) {
      const seq = robot.stop(acceleration);
      recorder.command('stop', seq ?? null, 0, 0, acceleration ?? 0);
      return seq;
    },
  };
}
