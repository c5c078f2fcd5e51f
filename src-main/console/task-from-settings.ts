/**
 * What a console run predicts with and on which scene, from the operator's planner settings: the
 * prediction model they choose and the scene with their pusher speed limit. The task the run plans
 * with is planning/task-for-run.ts's, with the settings as its overrides.
 */
import type { Tolerance } from '#contract/state';
import type { PlannerSettings } from '#contract/planner-settings';
import type { Scene } from '#contract/scene';
import type { ModelRequest } from '../parareal/model-choice';

/**
 * The prediction model of the settings, or `auto` (resolved from the worker count when the run
 * starts); throws (for the operator) when the settings do not fit together.
 */
export function modelForRun(settings: PlannerSettings): ModelRequest {
  if (settings.predictionModel === 'coarse') return { kind: 'coarse' };
  if (settings.predictionModel === 'fine') return { kind: 'fine' };
  if (settings.predictionModel === 'auto') return { kind: 'auto' };
  if (settings.horizon % settings.slices !== 0)
    throw new Error(
      `the horizon (${settings.horizon} controls) does not divide into ${settings.slices} Parareal slices`,
    );
  const p = settings.parareal;
  const tolerance: Tolerance | null =
    p.mode === 'adaptive' ? { translation: p.translationTolerance, rotation: p.rotationTolerance } : null;
  return {
    kind: 'parareal',
    iterations: p.mode === 'adaptive' ? p.maxIterations : p.iterations,
    tolerance,
    controlsPerSlice: settings.horizon / settings.slices,
  };
}

/**
 * The scene as the run sees it: its pusher speed limit lowered to the operator's when that is
 * stricter (the planner samples within it and the supervisor enforces it).
 */
export function sceneForRun(scene: Scene, settings: PlannerSettings): Scene {
  const limit = Math.min(scene.limits.maxPusherSpeed, settings.maxPusherSpeed);
  return limit === scene.limits.maxPusherSpeed
    ? scene
    : { ...scene, limits: { ...scene.limits, maxPusherSpeed: limit } };
}
