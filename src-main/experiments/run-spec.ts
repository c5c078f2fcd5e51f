/**
 * What one experiment column runs: a prediction model, its coarse model and optionally a planner
 * other than the task file's, spelled MODEL[@COARSE][/PLANNER]: "parareal:2@learned",
 * "fine/uampc". Planners differ only in kind (planning/task-for-run.ts lays it over the task
 * file's); their settings stay those of the task file, so WAFR's TAMPC, MPC and UAMPC compare on
 * paired runs.
 */
import { parseModelSpec, type ModelSpec } from '../parareal/model-choice';
import type { Task } from '../planning/task-file';
import { isPlannerKind, plannerKinds } from '../planning/planners';

export interface RunSpec extends ModelSpec {
  /** Planner kind replacing the task file's, or null to keep it. */
  planner: Task['planner']['kind'] | null;
}

export function parseRunSpec(spec: string): RunSpec {
  const [model = '', planner, ...rest] = spec.split('/');
  if (rest.length > 0) throw new Error(`"${spec}": at most one /PLANNER`);
  if (planner === undefined) return { ...parseModelSpec(model), planner: null };
  if (!isPlannerKind(planner))
    throw new Error(`"${spec}": unknown planner "${planner}" (expected ${plannerKinds.join(', ')})`);
  return { ...parseModelSpec(model), planner };
}
