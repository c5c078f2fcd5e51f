/**
 * What-if re-planning: take one planner step of a logged run, plan again from its logged start
 * state with other settings (say, another Parareal iteration count) and return the new plan
 * beside the original. It never executes anything.
 *
 * The seam: `WhatIfPlanner` builds a one-step planner (src-main/planning's Planner) for a
 * scene and console planner settings. Building one needs the worker pool and the task's cost
 * terms, which the console gets from whoever wires the MPC loop into it (the run controller);
 * until that factory is injected, what-if answers with WHAT_IF_UNAVAILABLE instead of guessing.
 */
import { type Planner } from '../planning/planner';
import { type PlannerStep } from '#contract/planner-events';
import type { PlannerSettings } from '#contract/planner-settings';
import type { Scene } from '#contract/scene';
import { stepRecord } from '../planning/step-record';
import { monotonicSeconds } from '../common/clock';

export const WHAT_IF_UNAVAILABLE =
  'What-if re-planning is not available: no planner is connected to the console (it comes with the MPC run controller).';

export interface WhatIfPlannerFactory {
  /** A one-step planner for this scene and these settings; dispose() releases what it holds. */
  create(scene: Scene, settings: PlannerSettings): Promise<{ planner: Planner; dispose(): void }>;
  /** Workers the predictions run on (reported in the step's timings). */
  readonly workers: number;
}

export interface WhatIfResult {
  original: PlannerStep;
  replanned: PlannerStep;
  settings: PlannerSettings;
}

/** Re-plans `original` from its logged start state with `settings`. */
export async function replanStep(
  factory: WhatIfPlannerFactory,
  scene: Scene,
  original: PlannerStep,
  settings: PlannerSettings,
): Promise<WhatIfResult> {
  const { planner, dispose } = await factory.create(scene, settings);
  try {
    const t0 = monotonicSeconds();
    const plan = await planner.plan({
      x: Float64Array.from(original.start),
      step: original.step,
      // The control executed before this step is not in the step itself; planning from rest is
      // the what-if's assumption, and it only matters to smoothness cost terms.
      uPrev: [0, 0],
    });
    const planning = monotonicSeconds() - t0;
    // Described as the run describes its steps (planning/step-record.ts), without rollout traces.
    const replanned = stepRecord({
      step: original.step,
      time: original.time,
      sliderIds: original.sliderIds,
      start: original.start,
      plan,
      planning,
      controlDuration: settings.controlDuration,
      workers: factory.workers,
      theoreticalSpeedup: null,
      rollouts: false,
    });
    return { original, replanned, settings };
  } finally {
    dispose();
  }
}
