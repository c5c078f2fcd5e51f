import { type Plan, type PlanContext } from '../../src-main/planning/planner';
/**
 * Watching the planner of a run the way it really runs (supervised-run.ts builds it with
 * task-run.ts createTaskRun): a test mocks task-run with this, so the task's own planner plans and
 * the test's hook sees every plan() call, and may hold its answer back as a slow plan would.
 *
 *   vi.mock('../../src-main/planning/task-run', async (importOriginal) =>
 *     (await import('../helpers/watched-planner')).withPlanHook(await importOriginal(), hook));
 */

type TaskRunModule = typeof import('../../src-main/planning/task-run');

/** Called for each plan() with the planner's own plan(); what it returns is the run's answer. */
export type PlanHook = (ctx: PlanContext, plan: (ctx: PlanContext) => Promise<Plan>) => Promise<Plan>;

/** task-run as it is, but for createTaskRun, whose planner's plan() goes through `hook`. */
export function withPlanHook(real: TaskRunModule, hook: PlanHook): TaskRunModule {
  return {
    ...real,
    createTaskRun: async (...args) => {
      const parts = await real.createTaskRun(...args);
      const planner = parts.planner;
      const plan = planner.plan.bind(planner);
      planner.plan = (ctx) => hook(ctx, plan);
      return parts;
    },
  };
}
