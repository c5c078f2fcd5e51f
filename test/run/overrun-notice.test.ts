/**
 * The console says when planning overruns the control on this machine: after OVERRUN_STREAK
 * consecutive steps planned slower than their control, a run on a lab logs one warning with the
 * measured planning times, the workers and the machine's load, and what to do; a step within its
 * control ends the streak (a later streak is told again); a step planned before arming neither
 * counts nor breaks one; a simulated run (whose world waits for its planner) is never told.
 */
import { describe, expect, it } from 'vitest';
import { type PlannerStep } from '#contract/planner-events';
import type { ConsoleEvent } from '#contract/console-api';
import { OVERRUN_STREAK, OverrunStreak } from '#contract/planning-overrun';
import { RunOwner } from '../../src-main/run/run-owner';
import { RunReporter } from '../../src-main/run/run-report';

function step(n: number, planning: number, extra: Partial<PlannerStep> = {}): PlannerStep {
  return {
    step: n,
    time: n,
    sliderIds: ['slider'],
    start: [0, 0, 0, 0, 0, 0],
    plan: [[0.01, 0]],
    controlDuration: 1,
    predictions: [],
    convergence: [],
    costs: [1],
    timings: { planning, prediction: planning, workers: 2, theoreticalSpeedup: null },
    ...extra,
  };
}

function reporter(realTime: boolean) {
  const events: ConsoleEvent[] = [];
  const run = new RunOwner({ workers: 2, now: () => 1_700_000_000, clock: () => 100 });
  run.publishTo((e) => events.push(e));
  run.begin('dry');
  const report = new RunReporter(run, { realTime });
  const notices = (): string[] =>
    events.flatMap((e) => (e.type === 'log' && e.source === 'planner' ? [e.message] : []));
  return { report, notices, events };
}

describe('planning that overruns the control', () => {
  it(`is told once a streak reaches ${OVERRUN_STREAK} steps, with the figures and what to do`, () => {
    const { report, notices, events } = reporter(true);
    const times = [2.41, 2.55, 2.7];
    report.step(step(0, 0.4));
    report.step(step(1, times[0]!));
    report.step(step(2, times[1]!));
    expect(notices()).toEqual([]);
    report.step(step(3, times[2]!));
    expect(notices()).toHaveLength(1);
    const notice = notices()[0]!;
    expect(notice).toMatch(
      /^Planning overruns the control on this machine: 2\.41 s, 2\.55 s, 2\.70 s for the last 3 steps against a 1\.00 s control \(2 workers\)/,
    );
    expect(notice).toMatch(/Load average \d+\.\d on \d+ cores/);
    expect(notice).toMatch(/fewer workers/);
    expect(notice).toMatch(/smaller model: coarse, or Parareal/);
    const log = events.find((e) => e.type === 'log' && e.source === 'planner');
    expect(log).toMatchObject({ level: 'warn' });
    // The streak goes on: told once, not at every step.
    report.step(step(4, 2.6));
    expect(notices()).toHaveLength(1);
    // A step within its control ends it; the next streak is told again.
    report.step(step(5, 0.9));
    for (let n = 6; n < 6 + OVERRUN_STREAK - 1; n++) report.step(step(n, 1.5));
    expect(notices()).toHaveLength(1);
    report.step(step(9, 1.5));
    expect(notices()).toHaveLength(2);
  });

  it('does not count a step planned before arming, nor let it break a streak', () => {
    const s = new OverrunStreak();
    expect(s.observe(step(0, 30, { beforeArming: true }))).toBeNull();
    expect(s.observe(step(1, 1.2))).toBeNull();
    expect(s.observe(step(2, 1.3))).toBeNull();
    expect(s.observe(step(3, 0.2, { beforeArming: false }))).toBeNull();
    expect(s.observe(step(4, 1.1))).toBeNull();
    expect(s.observe(step(5, 1.1))).toBeNull();
    expect(s.observe(step(6, 1.1))).toEqual({ planning: [1.1, 1.1, 1.1], control: 1, workers: 2 });
  });

  it('is not told for planning exactly as long as the control, nor in a simulated run', () => {
    const lab = reporter(true);
    for (let n = 0; n < 5; n++) lab.report.step(step(n, 1));
    expect(lab.notices()).toEqual([]);
    const simulated = reporter(false);
    for (let n = 0; n < 5; n++) simulated.report.step(step(n, 3));
    expect(simulated.notices()).toEqual([]);
  });
});
