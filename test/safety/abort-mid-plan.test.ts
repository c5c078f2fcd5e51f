/**
 * An abort ends the MPC loop mid-plan: every plan gets the run's abort signal, and the loop stops
 * waiting for a plan the moment the run aborts, whatever is still computing it. Order of events
 * is asserted, not wall time.
 */
import { describe, expect, it } from 'vitest';
import { type Plan, type PlanContext, type Planner } from '../../src-main/planning/planner';
import { initialState, type State, type Control } from '#contract/state';
import { runMpc } from '../../src-main/planning/mpc-loop';
import { TaskGeometry } from '../../src-main/planning/task-geometry';
import type { Plant } from '../../src-main/planning/plant';
import { referenceScene } from '../helpers/scenes';

const scene = { ...referenceScene('isrr-obstacle'), obstacles: [] };
const geometry = new TaskGeometry(scene);

/** A planner whose plans never finish by themselves (a slow prediction stuck on the workers). */
class StuckPlanner implements Planner {
  readonly asked: PlanContext[] = [];
  onAsked: (() => void) | undefined;
  plan(ctx: PlanContext): Promise<Plan> {
    this.asked.push(ctx);
    this.onAsked?.();
    return new Promise<Plan>(() => undefined);
  }
}

class StillPlant implements Plant {
  readonly executed: Control[] = [];
  private readonly x: State = initialState(scene);
  observe(): State {
    return Float64Array.from(this.x);
  }
  async execute(u: Control): Promise<State[]> {
    this.executed.push(u);
    return [this.observe()];
  }
}

describe('abort mid-plan', () => {
  it.each(['synchronous', 'asynchronous'] as const)(
    'ends the %s loop as aborted without waiting for the plan, which got the abort signal',
    async (mode) => {
      const planner = new StuckPlanner();
      const plant = new StillPlant();
      const abort = new AbortController();
      const events: string[] = [];
      planner.onAsked = () => {
        events.push('plan asked');
        // The operator aborts while the plan is being made.
        queueMicrotask(() => {
          events.push('abort');
          abort.abort();
        });
      };
      const summary = await runMpc({
        plant,
        planner,
        geometry,
        controlDuration: 1,
        maxActions: 5,
        timeLimit: 100,
        workers: 1,
        theoreticalSpeedup: null,
        asynchronous: mode === 'asynchronous' ? { tolerance: { translation: 0.003, rotation: 0.03 } } : null,
        signal: abort.signal,
      });
      events.push(`loop ${summary.outcome}`);
      expect(events).toEqual(['plan asked', 'abort', 'loop aborted']);
      expect(plant.executed).toEqual([]);
      expect(planner.asked).toHaveLength(1);
      expect(planner.asked[0]!.signal?.aborted).toBe(true);
    },
  );
});
