/**
 * The registry of planners (in the manner of MuJoCo MPC's planners/include.cc): each kind a task
 * may name, with its name, description and how it is built. A planner lives in a folder of its own
 * (mpc/, tampc/) and is added here, one line: the kinds a task file, a run's settings, an
 * experiment's MODEL/PLANNER and `parapush run --planner` accept are this registry's keys, and the
 * console's planner list is built from its entries.
 */
import type { PlannerKindEntry } from '#contract/console-api';
import { mpc } from './mpc/definition';
import type { PlannerDefinition } from './planner';
import { tampc, uampc } from './tampc/definition';

export const planners = { mpc, tampc, uampc } as const satisfies Record<string, PlannerDefinition>;

/** A kind the registry has. */
export type PlannerKind = keyof typeof planners;

/** Every kind, in registry order. */
export const plannerKinds = Object.keys(planners) as PlannerKind[];

export function isPlannerKind(kind: string): kind is PlannerKind {
  return Object.hasOwn(planners, kind);
}

/** The registry's entry of `kind`; throws naming the kinds there are for one it does not have. */
export function plannerOf(kind: string): PlannerDefinition {
  if (!isPlannerKind(kind))
    throw new Error(`unknown planner "${kind}" (the planners: ${plannerKinds.join(', ')})`);
  return planners[kind];
}

/** The entries the console and `parapush run --planner` offer, in registry order. */
export function offeredPlanners(): PlannerKindEntry[] {
  return plannerKinds
    .filter((kind) => planners[kind].offered)
    .map((kind) => ({ kind, name: planners[kind].name, description: planners[kind].description }));
}
