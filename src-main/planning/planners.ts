/**
 * The registry of planners (in the manner of MuJoCo MPC's planners/include.cc): each kind a task
 * may name, with its name, description and how it is built. A planner lives in a folder of its own
 * (mpc/, tampc/) and is added here; the console's planner list is built from these entries.
 */
import type { PlannerKindEntry } from '#contract/console-api';
import { runPlannerKindSchema } from '#contract/planner-settings';
import { mpc } from './mpc/definition';
import type { PlannerDefinition } from './planner';
import { tampc, uampc } from './tampc/definition';
import type { Task } from './task-file';

/** The planner kinds a task file names (contract/planner-settings.ts plannerKindSchema). */
export type PlannerKind = Task['planner']['kind'];

export const planners: { readonly [K in PlannerKind]: PlannerDefinition } = { mpc, tampc, uampc };

/** The entries the console lists (those it offers), in registry order. */
export function offeredPlanners(): PlannerKindEntry[] {
  return (Object.keys(planners) as PlannerKind[])
    .filter((kind) => planners[kind].offered)
    .map((kind) => ({
      // An offered planner is one the console's settings and `parapush run --planner` may name.
      kind: runPlannerKindSchema.parse(kind),
      name: planners[kind].name,
      description: planners[kind].description,
    }));
}
