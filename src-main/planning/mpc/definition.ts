/** MPC in the planner registry (planners.ts): its name, description and how a task builds it. */
import { plannedClearance } from '../costs/cost-terms';
import type { PlannerDefinition } from '../planner';
import { MpcPlanner } from './mpc-planner';

export const mpc: PlannerDefinition = {
  name: 'MPC',
  description: 'MPC: sampling-based optimization of a fixed-horizon push (WAFR 2018 Sec. 6)',
  offered: true,
  create(p) {
    const t = p.task.planner;
    return new MpcPlanner({
      geometry: p.geometry,
      rollout: p.rollout,
      cost: p.cost,
      rng: p.rng,
      optimizer: p.optimizer,
      horizon: t.horizon,
      initialSpeed: t.initialSpeed,
      ...(t.fastSpeed !== undefined ? { fastSpeed: t.fastSpeed } : {}),
      obstacleClearance: plannedClearance(p.task.costs),
      controlDuration: t.controlDuration,
      iterationLabels: p.iterationLabels,
    });
  },
};
