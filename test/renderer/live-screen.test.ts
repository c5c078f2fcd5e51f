// The live screen's pure parts: the run clock and "is a run active" in the console state, the
// planner readout, chart axes and legend values, and the table view's label layout.
import { describe, expect, it } from 'vitest';
import { type PlannerStep } from '#contract/planner-events';
import type { ConsoleEvent, RunStatus } from '#contract/console-api';
import { overlap, placeLabels, type LabelRequest } from '../../src-renderer/src/lib/label-layout';
import { plannerProgress, type ProgressInput } from '../../src-renderer/src/lib/planner-progress';
import { formatLegendValue, integerRange, latestFinite } from '../../src-renderer/src/lib/plot-axes';
import { formatRunTime, elapsedRunTime } from '../../src-renderer/src/lib/run-clock';
import { ConsoleState, idleRun } from '../../src-renderer/src/state/console-state.svelte';
import { plannerStep } from '../session/sample-messages';

const runEvent = (patch: Partial<RunStatus>, base: RunStatus = idleRun): ConsoleEvent => ({
  type: 'run',
  status: { ...base, ...patch },
});

describe('run clock in the console state', () => {
  it('ticks while the run is active and freezes at the real run time on an abort', () => {
    let now = 1_000;
    const m = new ConsoleState(() => now);
    const startedAt = now;
    m.apply(runEvent({ phase: 'starting', mode: 'dry', startedAt }));
    expect(m.runActive).toBe(true);
    m.apply(runEvent({ phase: 'running', mode: 'dry', startedAt, safety: 'safe' }));
    now += 7.4;
    expect(elapsedRunTime(m.runClock, now)).toBeCloseTo(7.4);
    // The core reports the abort before the run has wound down: its elapsed is still 0.
    m.apply(
      runEvent({ phase: 'aborted', mode: 'dry', startedAt, reason: 'Aborted by operator', elapsed: 0 }),
    );
    expect(m.runActive).toBe(false);
    now += 60;
    expect(formatRunTime(elapsedRunTime(m.runClock, now))).toBe('00:07');
    // The run's end arrives later with the core's elapsed: the timer stays where the run stopped.
    m.apply(
      runEvent({ phase: 'aborted', mode: 'dry', startedAt, reason: 'Aborted by operator', elapsed: 9.1 }),
    );
    expect(formatRunTime(elapsedRunTime(m.runClock, now))).toBe('00:07');
    // The next run starts from zero.
    m.apply(runEvent({ phase: 'starting', mode: 'dry', startedAt: now }));
    expect(elapsedRunTime(m.runClock, now)).toBe(0);
  });

  it("takes the core's elapsed when the stop reports one", () => {
    let now = 5;
    const m = new ConsoleState(() => now);
    m.apply(runEvent({ phase: 'starting', mode: 'dry', startedAt: now }));
    now += 3;
    m.apply(runEvent({ phase: 'finished', mode: 'dry', startedAt: 5, reason: 'Goal reached', elapsed: 2.9 }));
    expect(m.runClock).toEqual({ active: false, startedAt: 5, stopped: 2.9 });
  });

  it('waits for the first planner step from the start of the run (it is planned during pre-flight), then from each step', () => {
    let now = 1;
    const m = new ConsoleState(() => now);
    m.apply(runEvent({ phase: 'starting', mode: 'dry', startedAt: 1 }));
    expect(m.stepWaitSince).toBe(1);
    now = 2;
    m.apply(runEvent({ phase: 'running', mode: 'dry', startedAt: 1 }));
    expect(m.stepWaitSince).toBe(1);
    now = 6;
    m.apply({ type: 'planner-step', step: plannerStep(0, 0) });
    expect(m.stepWaitSince).toBe(6);
    m.apply(runEvent({ phase: 'aborted', mode: 'dry', startedAt: 1, reason: 'Aborted by operator' }));
    expect(m.stepWaitSince).toBeNull();
  });

  it("times a real run's first step from its arming, not from the wait for Arm before it", () => {
    let now = 1;
    const m = new ConsoleState(() => now);
    m.apply(runEvent({ phase: 'starting', mode: 'real', startedAt: 1 }));
    now = 100;
    m.apply(runEvent({ phase: 'starting', mode: 'real', startedAt: 1, awaitingArm: true }));
    now = 110;
    m.apply(runEvent({ phase: 'running', mode: 'real', startedAt: 1, armed: true }));
    expect(m.stepWaitSince).toBe(110);
  });

  it('formats run times', () => {
    expect(formatRunTime(0)).toBe('00:00');
    expect(formatRunTime(75.9)).toBe('01:15');
    expect(formatRunTime(3725)).toBe('1:02:05');
  });
});

describe('planner readout', () => {
  const step = (patch: Partial<PlannerStep> = {}): PlannerStep => ({ ...plannerStep(2, 0), ...patch });
  const input = (patch: Partial<ProgressInput> = {}): ProgressInput => ({
    step: null,
    active: true,
    waitingSince: 10,
    now: 10,
    maxExecutedActions: 20,
    controlDuration: 1,
    asynchronous: false,
    ...patch,
  });

  it('counts actions of the most and times the first plan from the start of running', () => {
    const p = plannerProgress(input({ now: 12.5 }));
    expect(p.actions).toBe('0 of 20');
    expect(p.activity).toEqual({ kind: 'planning', step: 0, seconds: 2.5, of: 1 });
  });

  it('counts nothing while a real run waits for Arm, and no control while it gets ready', () => {
    // Long after the run began (as an operator takes their time): no "planning step 0 109.6 s".
    const waiting = plannerProgress(input({ now: 119.6, realStart: 'awaiting-arm' }));
    expect(waiting.activity).toEqual({ kind: 'awaiting-arm', step: 0, seconds: 0, of: null });
    const ready = plannerProgress(input({ now: 12.5, realStart: 'preparing' }));
    expect(ready.activity).toEqual({ kind: 'preparing', step: 0, seconds: 2.5, of: null });
  });

  it('executes a step for its control duration, then plans the next (synchronous loop)', () => {
    const s = step({ controlDuration: 1 });
    const executing = plannerProgress(input({ step: s, now: 10.4 }));
    expect(executing.actions).toBe(`${s.step + 1} of 20`);
    expect(executing.activity).toMatchObject({ kind: 'executing', step: s.step });
    const planning = plannerProgress(input({ step: s, now: 13 }));
    expect(planning.activity?.kind).toBe('planning');
    expect(planning.activity?.step).toBe(s.step + 1);
    expect(planning.activity?.seconds).toBeCloseTo(2);
    const overlapped = plannerProgress(input({ step: s, now: 10.4, asynchronous: true }));
    expect(overlapped.activity).toMatchObject({ kind: 'planning', step: s.step + 1 });
  });

  it('reads cost, iterations and re-planning from the last step, and stops the clock after the run', () => {
    const s = step({
      costs: [9, 7.25],
      replan: { divergence: { translation: 0.0042, rotation: 0 }, replanned: true },
    });
    const p = plannerProgress(input({ step: s, active: false }));
    expect(p.activity).toBeNull();
    expect(p.bestCost).toBe(7.25);
    expect(p.optimizerIterations).toBe(2);
    expect(p.pararealIterations).toBe(s.predictions.length > 1 ? s.convergence.length : null);
    expect(p.replan?.replanned).toBe(true);
    expect(p.replan?.offMm).toBeCloseTo(4.2);
  });
});

describe('chart axes and legends', () => {
  it('gives a single point a range around it, never below 0 for counts', () => {
    expect(integerRange(0, 0)).toEqual([0, 1]);
    expect(integerRange(1, 1)).toEqual([0, 2]);
    expect(integerRange(3, 7)).toEqual([3, 7]);
    expect(integerRange(null, null)).toEqual([0, 1]);
  });

  it('shows the latest value in the legend', () => {
    expect(latestFinite([1, 2, NaN])).toBe(2);
    expect(latestFinite([])).toBeNull();
    expect(formatLegendValue(4.123456)).toBe('4.12');
    expect(formatLegendValue(3)).toBe('3');
    expect(formatLegendValue(null)).toBe('–');
    expect(formatLegendValue(0.0000123)).toBe('1.23e-5');
  });
});

describe('table view labels', () => {
  const width = (text: string) => text.length * 7;

  it('moves labels that would cover each other, and keeps them clear of marks to avoid', () => {
    const at: [number, number] = [100, 100];
    // In priority order, as the table view asks: the pusher first, the iterations after.
    const requests: LabelRequest[] = [
      { text: 'pusher', anchor: [100, 140], offset: [0, -16], colour: '#000' },
      { text: 'k=0', anchor: at, offset: [20, -10], colour: '#000' },
      { text: 'k=1', anchor: at, offset: [20, -10], colour: '#000' },
    ];
    const mark = { x: 95, y: 100, w: 10, h: 10 };
    const placed = placeLabels(requests, width, [mark]);
    expect(placed.map((p) => p.moved)).toEqual([false, false, true]);
    for (let i = 0; i < placed.length; i++)
      for (let j = i + 1; j < placed.length; j++) expect(overlap(placed[i]!.box, placed[j]!.box)).toBe(0);
    for (const p of placed) expect(overlap(p.box, mark)).toBe(0);
  });
});
