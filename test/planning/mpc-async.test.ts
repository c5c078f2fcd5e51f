/**
 * Asynchronous MPC (mpc-loop.ts): the next step is planned while the current control executes,
 * from the state the plan predicts; observations that disagree trigger a fresh plan; an abort
 * drops a pending plan; a late plan leaves the arm holding still; no plan is sent from a state the
 * table has left.
 */
import { describe, expect, it } from 'vitest';
import { type PlanContext, type Planner } from '../../src-main/planning/planner';
import { initialState, layoutForScene, type State, type Control, type Tolerance } from '#contract/state';
import { seenTable } from '../helpers/seen-table';
import type { Plant } from '../../src-main/planning/plant';
import { RobotPlant, type PlantSupervisor } from '../../src-main/run/robot-plant';
import {
  geometry,
  KinematicPlanner,
  KinematicPlant,
  runKinematicLoop,
  scene,
} from '../helpers/kinematic-mpc';
import { kinematicStep } from './toy';
import { sleep } from '../../src-main/common/timers';

const L = geometry.layout;
const spread: Tolerance = { translation: 0.008, rotation: 0.07 };

/** Plans u = (0.05, step / 1000), distinct per step, taking `delay(step)` s of wall time. */
const recordingPlanner = (dt: number, delay: (step: number) => number = () => 0): KinematicPlanner =>
  new KinematicPlanner(dt, { control: (step) => [0.05, step / 1000], delay });

/** Moves pusher and object kinematically, `bias` m/s sideways; execute takes `real` s of wall time. */
const kinematicPlant = (x: State, real = 0, bias = 0): KinematicPlant =>
  new KinematicPlant(x, { real, bias });

const run = (plant: Plant, planner: Planner, o: { maxActions: number; dt: number; signal?: AbortSignal }) =>
  runKinematicLoop(plant, planner, { ...o, tolerance: spread, asynchronous: true });

describe('asynchronous MPC', () => {
  it('plans step n+1 during control n, from the state plan n predicts at its end', async () => {
    const dt = 0.05;
    const planner = recordingPlanner(dt);
    const plant = kinematicPlant(initialState(scene), 0.03);
    const { summary, steps } = run(plant, planner, { maxActions: 4, dt });
    expect((await summary).actions).toBe(4);
    for (let n = 0; n < 3; n++) {
      const next = planner.asked[n + 1]!;
      // Warm-started from plan n, the one executing meanwhile.
      expect(next.ctx.previous).toEqual(steps[n]!.plan);
      // Asked before control n finished, from plan n's predicted end state.
      expect(next.at).toBeLessThan(plant.executed[n]!.end);
      expect(Array.from(next.ctx.x)).toEqual(steps[n]!.predictions[0]!.states[1]);
      expect(steps[n + 1]!.replan).toEqual({ divergence: expect.anything(), replanned: false });
    }
    // Task time: four controls and the first plan; the overlapped plans cost no waiting.
    expect((await summary).taskTime).toBeCloseTo(4 * dt + (await summary).planningTimes[0]!, 6);
  });

  it('plans again from the observation when it is off the prediction, and says so', async () => {
    const dt = 1;
    const planner = recordingPlanner(dt);
    // The world drifts 20 mm sideways per control: beyond the 8 mm tolerance.
    const plant = kinematicPlant(initialState(scene), 0, 0.02);
    const { summary, steps } = run(plant, planner, { maxActions: 3, dt });
    await summary;
    for (const s of steps.slice(1)) {
      expect(s.replan!.replanned).toBe(true);
      expect(s.replan!.divergence.translation).toBeCloseTo(0.02, 9);
    }
    // The executed plans started from the observed states, not the predicted ones.
    const observed = plant.executed.length;
    expect(observed).toBe(3);
    // Each dropped plan was cancelled, so its predictions leave the workers to its replacement.
    const dropped = planner.asked.filter(({ ctx }) => ctx.signal);
    expect(dropped).toHaveLength(2);
    for (const { ctx } of dropped) expect(ctx.signal!.aborted).toBe(true);
    expect(steps[2]!.start).toEqual(Array.from(planner.asked[planner.asked.length - 1]!.ctx.x));
    // Warm starts follow what ran: the dropped plan of step n+1 is never the warm start of its
    // replacement; both are warm-started from plan n, whose first control was executed.
    const executedPlans = steps.map((s) => s.plan);
    for (const { ctx } of planner.asked.slice(1)) {
      expect(ctx.previous).toEqual(executedPlans[ctx.step - 1]);
    }
  });

  it('drops a plan that arrives after an abort', async () => {
    const dt = 0.02;
    const abort = new AbortController();
    const planner = recordingPlanner(dt, (step) => (step === 0 ? 0 : 0.08));
    const plant = kinematicPlant(initialState(scene), 0.02);
    const { summary } = run(plant, planner, { maxActions: 10, dt, signal: abort.signal });
    await sleep(0.04); // control 0 done, plan 1 still running
    abort.abort();
    const s = await summary;
    expect(s.outcome).toBe('aborted');
    expect(plant.executed).toHaveLength(1);
  });

  it('cancels the plan for the next step when the run ends during a control', async () => {
    const dt = 0.02;
    const abort = new AbortController();
    const planner = recordingPlanner(dt, (step) => (step === 0 ? 0 : 0.08));
    const plant = kinematicPlant(initialState(scene), 0.03);
    const { summary } = run(plant, planner, { maxActions: 10, dt, signal: abort.signal });
    await sleep(0.01); // control 0 under way, plan 1 started
    abort.abort();
    expect((await summary).outcome).toBe('aborted');
    expect(planner.asked).toHaveLength(2);
    // Plan 1 was for a step that will not come: cancelled, not left running on the workers.
    expect(planner.asked[1]!.ctx.signal!.aborted).toBe(true);
  });

  it('does not wait for a dropped plan before planning again', async () => {
    const dt = 0.01;
    const planner = recordingPlanner(dt);
    // Plans for predicted states never finish unless cancelled: waiting for one would hang the run.
    const dropped: PlanContext[] = [];
    const both: Planner = {
      plan: (ctx) => {
        if (!ctx.signal) return planner.plan(ctx);
        dropped.push(ctx);
        return new Promise((_, reject) =>
          ctx.signal!.addEventListener('abort', () => reject(new Error('cancelled'))),
        );
      },
    };
    // 20 mm of drift per control: every pending plan is dropped.
    const plant = kinematicPlant(initialState(scene), 0, 2);
    const { summary } = run(plant, both, { maxActions: 3, dt });
    expect((await summary).actions).toBe(3);
    expect(dropped).toHaveLength(2);
    for (const ctx of dropped) expect(ctx.signal!.aborted).toBe(true);
  });

  it('never sends a plan made from a state the table has since left', async () => {
    const dt = 1;
    const x0 = initialState(scene);
    const plant = kinematicPlant(x0);
    // While the first plan is being made, someone moves the object by 30 mm.
    const planner = recordingPlanner(dt, (step) => {
      if (step === 0 && planner.asked.length === 1) {
        const o = L.posOffset(0);
        plant.x = Float64Array.from(plant.x);
        plant.x[o + 1] = plant.x[o + 1]! + 0.03;
      }
      return 0;
    });
    const { summary, steps } = run(plant, planner, { maxActions: 1, dt });
    await summary;
    expect(planner.asked).toHaveLength(2);
    expect(steps[0]!.replan!.replanned).toBe(true);
    expect(steps[0]!.start).toEqual(Array.from(planner.asked[1]!.ctx.x));
    expect(steps[0]!.start[L.posOffset(0) + 1]).toBeCloseTo(x0[L.posOffset(0) + 1]! + 0.03, 12);
  });

  it('holds the arm still while a late plan is made, and never replays the last control', async () => {
    const dt = 0.04;
    const calls: { kind: 'command' | 'hold'; u?: Control; at: number }[] = [];
    // Streams as the supervisor does: the control every period for its duration, then a hold.
    const supervisor: PlantSupervisor = {
      state: 'running',
      stopReason: undefined,
      commandFingers: () => true,
      stream: async (vx, vy, _yaw, duration, period) => {
        const end = performance.now() + duration * 1000;
        while (performance.now() < end) {
          calls.push({ kind: 'command', u: [vx, vy], at: performance.now() });
          await new Promise((r) => setTimeout(r, period * 1000));
        }
        calls.push({ kind: 'hold', at: performance.now() });
        return true;
      },
    };
    const layout = layoutForScene(scene);
    let x = initialState(scene);
    const robot = new RobotPlant({
      supervisor,
      estimate: () => seenTable(scene, x),
      commandPeriod: 0.005,
    });
    const plant: Plant = {
      observe: () => robot.observe(),
      execute: async (u, d) => {
        const path = await robot.execute(u, d);
        x = kinematicStep(layout, x, u, d);
        return path;
      },
    };
    // Plans after the first take three controls' time: every one is late.
    const planner = recordingPlanner(dt, (step) => (step === 0 ? 0 : 3 * dt));
    const { summary } = run(plant, planner, { maxActions: 3, dt });
    const s = await summary;
    expect(s.actions).toBe(3);
    // Commands come in three runs, one per control, each with its own plan's control; a hold
    // follows each run, and nothing moves the arm between a hold and the next plan's commands.
    const runs: Control[][] = [];
    let current: Control[] | null = null;
    for (const c of calls) {
      if (c.kind === 'command') (current ??= (runs.push([]), runs[runs.length - 1]!)).push(c.u!);
      else current = null;
    }
    expect(runs).toHaveLength(3);
    runs.forEach((r, n) => expect(r.every((u) => u[1] === n / 1000)).toBe(true));
    expect(calls[calls.length - 1]!.kind).toBe('hold');
    // The arm waited for the late plans: task time is more than the controls alone.
    expect(s.taskTime).toBeGreaterThan(3 * dt + 2 * (2 * dt));
  });
});
