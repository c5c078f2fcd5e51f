/**
 * The papers' claims against synthetic experiments: relative claims by the paired tests, measured
 * only within one run of the code; point figures reproduced only with every claim on their row;
 * the benches' accuracy claims against their intervals.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { benchClaims, errorVerdict, firstNonFallingIteration } from '../../src-main/experiments/bench-claims';
import {
  pointVerdict,
  scoreClaim,
  verdictText,
  type ClaimExperiment,
  type PaperFigure,
  type RelativeClaim,
} from '../../src-main/experiments/claims';
import type { SummaryRow } from '../../src-main/experiments/summary-file';
import { runRecord } from '../helpers/tiny-task';

const COMMIT = 'c'.repeat(40);
/** The three models' roles: FAST about 10 s everywhere, SLOW about 20 s, FLAKY fails every other scene. */
const FAST = 'fine';
const SLOW = 'coarse';
const FLAKY = 'parareal:1';

/** An experiment of 20 scenes; `outcome(model, scene)` gives each run's result and time. */
function experiment(
  name: string,
  outcome: (model: string, scene: number) => ['success' | 'failure', number],
  commit = COMMIT,
  repeatedAt: string[] = [],
): ClaimExperiment {
  const models = [FAST, SLOW, FLAKY];
  return {
    name,
    file: { task: 't', models, scenes: 20, seed: 1, commit, command: 'x' },
    runs: models.flatMap((m) => Array.from({ length: 20 }, (_, s) => runRecord(m, s, ...outcome(m, s)))),
    timeLimit: 100,
    repeatedAt,
  };
}

/** FAST: about 10 s everywhere; SLOW: about 20 s; FLAKY: fails every other scene (after 5 s), else 15 s. */
const exp = experiment('e', (m, s) =>
  m === FAST
    ? ['success', 10 + s * 0.01]
    : m === SLOW
      ? ['success', 20 + s * 0.02]
      : s % 2
        ? ['failure', 5]
        : ['success', 15],
);

const claim = (c: Partial<RelativeClaim>): RelativeClaim => ({
  claim: 'x',
  source: 'paper',
  metric: 'task-time',
  relation: 'better',
  a: { experiment: 'e', model: FAST },
  b: { experiment: 'e', model: SLOW },
  ...c,
});

describe('relative claims', () => {
  it('reproduce in the direction the paired test finds, and are contradicted against it', () => {
    expect(scoreClaim(claim({}), [exp]).verdict).toBe('reproduces');
    const reversed = scoreClaim(
      claim({ a: { experiment: 'e', model: SLOW }, b: { experiment: 'e', model: FAST }, cause: 'why' }),
      [exp],
    );
    expect(reversed.verdict).toBe('contradicted');
    expect(verdictText(reversed)).toBe('**contradicted**: why');
  });

  it('count a failure as slower than any completed run, and judge success by discordant scenes', () => {
    // FLAKY's failures end after 5 s, but count at the 100 s limit: FAST is faster.
    expect(scoreClaim(claim({ b: { experiment: 'e', model: FLAKY } }), [exp]).verdict).toBe('reproduces');
    const success = scoreClaim(claim({ metric: 'success', b: { experiment: 'e', model: FLAKY } }), [exp]);
    expect(success.difference).toMatchObject({ onlyA: 10, onlyB: 0 });
    expect(success.verdict).toBe('reproduces');
    // Both always succeed: no difference, so "better" is not shown and "similar" reproduces.
    expect(scoreClaim(claim({ metric: 'success' }), [exp]).verdict).toBe('not shown');
    expect(scoreClaim(claim({ metric: 'success', relation: 'similar' }), [exp]).verdict).toBe('reproduces');
    expect(scoreClaim(claim({ relation: 'similar' }), [exp]).verdict).toBe('contradicted');
  });

  it('are not measured across commits or without the experiment, and say what is missing', () => {
    const other = experiment('o', () => ['success', 30], 'd'.repeat(40));
    const apart = scoreClaim(claim({ b: { experiment: 'o', model: SLOW }, missing: 'one run' }), [
      exp,
      other,
    ]);
    expect(apart.verdict).toBe('not measured');
    expect(apart.difference).not.toBeNull();
    expect(verdictText(apart)).toBe(
      '**not measured** in one run (the sides ran at commits ccccccc and ddddddd); missing: one run',
    );
    expect(scoreClaim(claim({ b: { experiment: 'none', model: SLOW } }), [exp]).why).toBe(
      'no committed experiment none',
    );
    const dirty = experiment('o', () => ['success', 30], `${COMMIT}-dirty`);
    expect(scoreClaim(claim({ b: { experiment: 'o', model: SLOW } }), [exp, dirty]).why).toBe(
      'a side ran on uncommitted code',
    );
    // The same runs score nothing once stale.json lists their experiment.
    const stale = scoreClaim(claim({}), [{ ...exp, stale: 'another task' }]);
    expect(stale).toMatchObject({ verdict: 'not measured', difference: null });
    expect(verdictText(stale)).toBe('**not measured** in one run (e is listed stale)');
  });

  it('take success from two commits when both were repeated in full at one, never times', () => {
    const D = 'd'.repeat(40);
    // SLOW fails every scene in `other`, ran at D and repeated in full at COMMIT.
    const other = experiment('o', () => ['failure', 30], D, [COMMIT]);
    const across = (metric: RelativeClaim['metric'], o = other) =>
      scoreClaim(claim({ metric, b: { experiment: 'o', model: SLOW } }), [exp, o]);
    expect(across('success')).toMatchObject({ verdict: 'reproduces', why: null });
    expect(across('task-time').why).toBe('the sides ran at commits ccccccc and ddddddd');
    expect(
      across(
        'success',
        experiment('o', () => ['failure', 30], D, ['e'.repeat(40)]),
      ).why,
    ).toBe('the sides ran at commits ccccccc and ddddddd, with no full verification of both at one commit');
    // A run that ended at a wall-clock time limit is not fixed by a repeat.
    const timed = experiment('o', () => ['failure', 30], D, [COMMIT]);
    timed.runs.find((r) => r.model === SLOW)!.summary.outcome = 'time-limit';
    expect(across('success', timed).verdict).toBe('not measured');
  });
});

describe('point figures', () => {
  const row: SummaryRow = {
    model: FAST,
    runs: 30,
    successes: 27,
    successRate: 0.9,
    successLow: 0.74,
    successHigh: 0.97,
    taskTime: { mean: 20, ci95: 2 },
    taskTimeAll: { mean: 22, ci95: 3 },
    planningPerStep: { mean: 0.4, ci95: 0.01, max: 1 },
    actions: { mean: 10, ci95: 1 },
    outcomes: { success: 27, 'action-limit': 3 },
  };
  const figure = (metric: PaperFigure['metric'], value: number): PaperFigure => ({
    experiment: 'e',
    model: FAST,
    metric,
    value,
    source: 'paper',
  });

  it('inside our 95% interval reproduce, outside it better or fall short', () => {
    const v = (f: PaperFigure): string | undefined => pointVerdict(row, f, [])?.verdict;
    expect(v(figure('success', 0.8))).toBe('reproduces');
    expect(v(figure('success', 0.5))).toBe('betters');
    expect(v(figure('success', 1))).toBe('falls short');
    expect(v(figure('task-time', 21.5))).toBe('reproduces');
    expect(v(figure('task-time', 240))).toBe('betters');
    expect(
      pointVerdict({ ...row, taskTime: { mean: null, ci95: null } }, figure('task-time', 5), []),
    ).toBeNull();
  });

  it('reproduce or better only when every relative claim on their row reproduces', () => {
    const contradicted = scoreClaim(
      claim({ a: { experiment: 'e', model: SLOW }, b: { experiment: 'e', model: FAST } }),
      [exp],
    );
    const held = scoreClaim(claim({}), [exp]);
    expect(pointVerdict(row, figure('success', 0.8), [held])?.verdict).toBe('reproduces');
    const v = pointVerdict(row, figure('success', 0.5), [held, contradicted]);
    expect(v?.verdict).toBe('not reproduced');
    expect(v?.failing).toEqual([contradicted]);
    // Falling short stays falling short.
    expect(pointVerdict(row, figure('success', 1), [contradicted])?.verdict).toBe('falls short');
  });
});

describe("the benches' claims", () => {
  it('score an error figure against our interval: lower is better', () => {
    expect(errorVerdict(6.39, 2.9, 0.3)).toBe('betters');
    expect(errorVerdict(6.39, 17.1, 2.8)).toBe('falls short');
    expect(errorVerdict(3, 2.9, 0.3)).toBe('reproduces');
  });

  it('judge "K = 2 within the real-world spread" by our whole interval, per slider shape', () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'parapush-bench-claims-'));
    try {
      mkdirSync(path.join(root, 'bench/results'), { recursive: true });
      const row = (model: string, mm: number, deg: number) => ({
        model,
        'trans mm': mm,
        '+-95% mm': 1,
        'rot deg': deg,
        '+-95% deg': 0.5,
        'paper mm': 6.39,
        'paper deg': 3.82,
      });
      writeFileSync(
        path.join(root, 'bench/results/parareal.json'),
        JSON.stringify({
          table1: {
            samples: 100,
            box: { rows: [row('parareal:2', 3, 1)] },
            // 7.5 + 1 mm reaches past the 8.1 mm spread: not within it.
            cylinder: { rows: [row('parareal:2', 7.5, 1)] },
          },
        }),
      );
      const md = benchClaims(root).join('\n');
      expect(md).toContain('| box | 3.0 ± 1.0 mm, 1.0 ± 0.5 deg | **reproduces** |');
      expect(md).toContain('| cylinder | 7.5 ± 1.0 mm, 1.0 ± 0.5 deg | **contradicted** |');
      expect(md).not.toContain('CVS 2020 Fig. 2');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('find the first Parareal iteration whose error does not fall', () => {
    expect(firstNonFallingIteration([30, 20, 5, 0])).toBeNull();
    expect(firstNonFallingIteration([30, 20, 20, 0])).toBe(2);
    expect(firstNonFallingIteration([30, 31, 5, 0])).toBe(1);
  });

  it('judge CVS Fig. 4 per slider count and coarse model on the mean over sliders', () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'parapush-bench-claims-'));
    try {
      mkdirSync(path.join(root, 'bench/results'), { recursive: true });
      const row = (sliders: number, coarse: string, slider: number, mm: number[]) => ({
        sliders,
        coarse,
        slider,
        ...Object.fromEntries(mm.map((v, k) => [`k=${k} mm`, v])),
      });
      writeFileSync(
        path.join(root, 'bench/results/learned.json'),
        JSON.stringify({
          fig4: {
            samples: 30,
            controls: 2,
            rows: [
              row(1, 'learned', 1, [10, 4, 0]),
              row(1, 'analytical', 1, [10, 12, 0]),
              // Slider 2's rise at k = 1 is outweighed by slider 1's fall: the mean falls.
              row(2, 'learned', 1, [10, 2, 0]),
              row(2, 'learned', 2, [4, 6, 0]),
            ],
          },
        }),
      );
      const md = benchClaims(root).join('\n');
      expect(md).toContain('| 1 | learned | 10.0 | 4.00 | 0 | **reproduces** |');
      expect(md).toContain('| 1 | analytical | 10.0 | 12.0 | 0 | **not shown (no fall at k = 1)** |');
      expect(md).toContain('| 2 | learned | 7.00 | 4.00 | 0 | **reproduces** |');
      expect(md).not.toContain('| 2 | analytical');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
