/**
 * The cost of one predicted trajectory as WAFR 2018 Alg. 5 defines it: C[t] = sum of the running
 * terms for (x_t, x_{t+1}, u_t), with the terminal terms added to the last entry.
 */
import type { State } from '#contract/state';
import { type Control } from '#contract/state';
import type { TaskGeometry } from '../task-geometry';
import { buildCostTerm, plannedClearance, tableMargin, type CostTerm, type CostTermSpec } from './cost-terms';

export class TrajectoryCost {
  private readonly running: CostTerm[];
  private readonly terminal: CostTerm[];

  constructor(specs: readonly CostTermSpec[], geometry: TaskGeometry) {
    const clearance = plannedClearance(specs);
    const margin = tableMargin(specs);
    const terms = specs.map((s) => buildCostTerm(s, geometry, clearance, margin));
    this.running = terms.filter((t) => t.running);
    this.terminal = terms.filter((t) => t.terminal);
  }

  /** Running cost of one transition. */
  step(x: State, next: State, u: Control, uPrev: Control): number {
    let c = 0;
    for (const t of this.running) c += t.running!({ x, next, u, uPrev });
    return c;
  }

  final(x: State): number {
    let c = 0;
    for (const t of this.terminal) c += t.terminal!(x);
    return c;
  }

  /**
   * Per-control costs of a trajectory: states[0..n] (states[0] is the start), controls[0..n-1];
   * uPrev is the control executed before controls[0].
   */
  evaluate(states: readonly State[], controls: readonly Control[], uPrev: Control): number[] {
    const n = controls.length;
    if (states.length !== n + 1) throw new Error(`${n} controls need ${n + 1} states, got ${states.length}`);
    const out: number[] = [];
    for (let t = 0; t < n; t++) {
      out.push(this.step(states[t]!, states[t + 1]!, controls[t]!, t === 0 ? uPrev : controls[t - 1]!));
    }
    if (n > 0) out[n - 1]! += this.final(states[n]!);
    return out;
  }
}
