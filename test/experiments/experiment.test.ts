import { mkdtempSync, mkdirSync, readFileSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sampleInitialState } from '../../src-main/experiments/initial-states';
import { markdownTable, summarize, writeReport } from '../../src-main/experiments/report';
import { readRunRecords } from '../../src-main/experiments/run-record';
import {
  claimOutDir,
  readExperimentFile,
  runExperiment,
  shardScenes,
} from '../../src-main/experiments/runner';
import { parseRunSpec } from '../../src-main/experiments/run-spec';
import { taskForRun } from '../../src-main/planning/task-for-run';
import { meanCi95, meanCiText, wilsonInterval } from '../../src-main/experiments/stats';
import { barChartSvg, lineChartSvg, niceTicks, textWidth } from '../../src-main/experiments/svg-chart';
import { TaskGeometry } from '../../src-main/planning/task-geometry';
import { loadTaskFile } from '../../src-main/planning/task-file';
import { repoRoot } from '../helpers/scenes';
import { runRecord, tinyTask } from '../helpers/tiny-task';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'parapush-exp-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const isrr = loadTaskFile(path.join(repoRoot, 'resources/tasks/isrr-obstacle.json'));

describe('experiment statistics and report', () => {
  it('Wilson intervals and t-based confidence intervals match reference values', () => {
    const none = wilsonInterval(0, 20);
    expect(none.low).toBe(0);
    expect(none.high).toBeCloseTo(0.1611, 3);
    const half = wilsonInterval(10, 20);
    expect(half.low).toBeCloseTo(0.2993, 3);
    expect(half.high).toBeCloseTo(0.7007, 3);
    const m = meanCi95([1, 2, 3, 4]);
    expect(m.mean).toBe(2.5);
    expect(m.ci95).toBeCloseTo(3.182 * Math.sqrt(5 / 3 / 4), 6);
  });

  it('prints a single run as its value, not as an interval of zero width', () => {
    expect(meanCiText(meanCi95([24.8]))).toBe('24.8 (n = 1)');
    expect(meanCiText(meanCi95([]))).toBe('n/a');
    expect(meanCiText(meanCi95([1, 2, 3, 4]), 2)).toBe(`2.50 ± ${(3.182 * Math.sqrt(5 / 3 / 4)).toFixed(2)}`);
    const one = summarize([runRecord('fine', 0, 'success', 24.8)]);
    expect(markdownTable('t', one)).toContain('| 24.8 (n = 1) |');
    expect(markdownTable('t', one)).not.toContain('± 0.0');
  });

  it('planning per step counts planned steps only: a step without a plan (the closing reflex) is stored as 0 s', () => {
    const gripped = runRecord('fine/tampc', 0, 'success', 9);
    gripped.summary.planningTimes = [0.9, 0, 1.2, 0];
    const s = summarize([gripped])[0]!.planningPerStep;
    expect(s.n).toBe(2);
    expect(s.mean).toBeCloseTo(1.05, 12);
    expect(s.max).toBe(1.2);
  });

  it('summarizes per model and writes JSON, Markdown and SVG plots', () => {
    const records = [
      runRecord('fine', 0, 'success', 10),
      runRecord('fine', 1, 'success', 20),
      runRecord('coarse', 0, 'failure', 5),
    ];
    const s = summarize(records, ['coarse', 'fine']);
    expect(s.map((x) => x.model)).toEqual(['coarse', 'fine']);
    expect(s[1]!.successRate).toBe(1);
    expect(s[1]!.taskTime.mean).toBe(15);
    expect(s[0]!.outcomes).toEqual({ 'failure:obstacle-collision': 1 });
    expect(s[1]!.planningPerStep.mean).toBe(1);
    expect(markdownTable('t', s)).toContain('| fine | 2 | 100% (');
    const out = path.join(tmp, 'report');
    writeReport(out, 't', records, ['coarse', 'fine']);
    for (const f of ['summary.json', 'results.md', 'success.svg', 'task-time.svg'])
      expect(existsSync(path.join(out, f))).toBe(true);
    expect(readFileSync(path.join(out, 'success.svg'), 'utf8')).toMatch(
      /^<svg[\s\S]*coarse[\s\S]*fine[\s\S]*<\/svg>\n$/,
    );
  });

  it('gives plots round ticks with no exponent, even with no successful run to time', () => {
    expect(niceTicks(1)).toEqual({ values: [0, 0.25, 0.5, 0.75, 1], decimals: 2 });
    // A CI bound a rounding error above 15 must not add a tick of its own.
    expect(niceTicks(15.000000000000002).values).toEqual([0, 5, 10, 15]);
    expect(niceTicks(123.4).values).toEqual([0, 50, 100, 150]);
    expect(niceTicks(0.37)).toEqual({ values: [0, 0.1, 0.2, 0.3, 0.4], decimals: 1 });
    const out = path.join(tmp, 'no-success');
    writeReport(out, 't', [runRecord('coarse', 0, 'failure', 5)], ['coarse']);
    const ticks = [
      ...readFileSync(path.join(out, 'task-time.svg'), 'utf8').matchAll(/class="tick"[^>]*>([^<]*)</g),
    ];
    expect(ticks.map((m) => m[1])).toEqual(['0.00', '0.25', '0.50', '0.75', '1.00']);
  });

  it('sizes plots to their title and model names', () => {
    const svgWidth = (svg: string): number => Number(/<svg[^>]* width="(\d+)"/.exec(svg)![1]);
    const bar = { value: 1, low: 0.5, high: 1.5 };
    const short = barChartSvg({ title: 't', yLabel: 'y', bars: [{ label: 'fine', ...bar }] });
    const title = 'isrr-obstacle: task time of successful runs (95% CI)';
    const long = barChartSvg({ title, yLabel: 'y', bars: [{ label: 'fine', ...bar }] });
    expect(svgWidth(long)).toBeGreaterThanOrEqual(textWidth(title, 14));
    expect(svgWidth(long)).toBeGreaterThan(svgWidth(short));
    const label = 'parareal:2@learned/uampc';
    const bars = [label, label].map((l) => ({ label: l, ...bar }));
    const wide = barChartSvg({ title: 't', yLabel: 'y', bars });
    expect(svgWidth(wide)).toBeGreaterThan(2 * textWidth(label, 12));
  });

  it('shards partition the scenes, and an output folder refuses another experiment', () => {
    const all = [
      ...shardScenes(7, { index: 0, count: 3 }),
      ...shardScenes(7, { index: 1, count: 3 }),
      ...shardScenes(7, { index: 2, count: 3 }),
    ];
    expect(all.sort()).toEqual([0, 1, 2, 3, 4, 5, 6]);
    const dir = path.join(tmp, 'claim');
    claimOutDir(dir, { task: 'a', models: ['fine'], scenes: 2, seed: 1 });
    claimOutDir(dir, { task: 'a', models: ['fine'], scenes: 2, seed: 1 });
    expect(() => claimOutDir(dir, { task: 'a', models: ['fine'], scenes: 3, seed: 1 })).toThrow(
      /another experiment/,
    );
    // Asynchronous MPC is another experiment: its runs must not mix with synchronous ones.
    expect(() =>
      claimOutDir(dir, { task: 'a', models: ['fine'], scenes: 2, seed: 1, loopMode: 'asynchronous' }),
    ).toThrow(/another experiment/);
    // The folder records the commit of its runs and takes no runs of other code.
    const file = readExperimentFile(dir);
    expect(file.commit).toMatch(/^[0-9a-f]{40}(-dirty)?$/);
    expect(file.command).toBe(
      `npx parapush experiment --task a --models fine --scenes 2 --seed 1 --out ${path.relative(process.cwd(), dir)}`,
    );
    expect(() =>
      claimOutDir(dir, { task: 'a', models: ['fine'], scenes: 2, seed: 1 }, 'f'.repeat(40)),
    ).toThrow(/runs are from commit/);
  });

  it('reads an experiment.json written when the loop mode was called mode, and resumes it', () => {
    const dir = path.join(tmp, 'old-async');
    const commit = 'a'.repeat(40);
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      path.join(dir, 'experiment.json'),
      JSON.stringify({
        task: 'a',
        models: ['fine'],
        scenes: 2,
        seed: 1,
        mode: 'asynchronous',
        commit,
        command: 'npx parapush experiment --task a --models fine --scenes 2 --seed 1 --async --out x',
      }),
    );
    expect(readExperimentFile(dir).loopMode).toBe('asynchronous');
    // The same asynchronous experiment of the same code claims the folder; a synchronous one does not.
    const config = { task: 'a', models: ['fine'], scenes: 2, seed: 1 };
    claimOutDir(dir, { ...config, loopMode: 'asynchronous' }, commit);
    expect(() => claimOutDir(dir, config, commit)).toThrow(/another experiment/);
  });

  it('draws one line per series, broken where a value is missing, and the reference dashed', () => {
    const svg = lineChartSvg({
      title: 'planning time against workers',
      xLabel: 'workers',
      yLabel: 's/step',
      x: ['1', '2', '4'],
      series: [
        { label: 'fine', values: [1.2, 0.6, Number.NaN] },
        { label: 'parareal:2', values: [2.4, 1.3, 1.3] },
      ],
      reference: { value: 1, label: 'control 1 s' },
    });
    const paths = [...svg.matchAll(/<path d="([^"]+)"/g)].map((m) => m[1]!);
    expect(paths).toHaveLength(2);
    // The fine line stops at its last measured point (two points, one move and one line).
    expect(paths[0]!.match(/[ML]/g)).toEqual(['M', 'L']);
    expect(paths[1]!.match(/[ML]/g)).toEqual(['M', 'L', 'L']);
    expect(svg).toContain('stroke-dasharray');
    expect(svg).toContain('>parareal:2</text>');
  });

  it('samples ISRR starts whose straight push to the goal hits the obstacle, reproducibly', () => {
    const g = new TaskGeometry(isrr.scene);
    for (let seed = 0; seed < 50; seed++) {
      const x = sampleInitialState(isrr.scene, isrr.task.sampling, seed);
      expect(x).toEqual(sampleInitialState(isrr.scene, isrr.task.sampling, seed));
      const p = g.layout.sliderPose(x, 0);
      expect(Math.abs(p.y)).toBeLessThanOrEqual(0.025);
      expect(x[1]).toBe(p.y);
      // The obstacle (r 0.04) and the slider (r 0.051) overlap across |y| < 0.091 on the straight line.
      expect(Math.abs(p.y)).toBeLessThan(0.091);
    }
  });
});

describe('run specs', () => {
  it('spell MODEL[@COARSE][/PLANNER], keeping the task file planner unless one is named', () => {
    expect(parseRunSpec('parareal:2@learned/uampc')).toEqual({
      model: { kind: 'parareal', iterations: 2, tolerance: null, controlsPerSlice: 1 },
      coarse: 'learned',
      planner: 'uampc',
    });
    const plain = parseRunSpec('fine');
    expect(plain).toEqual({ model: { kind: 'fine' }, coarse: 'analytical', planner: null });
    expect(taskForRun(isrr.task, { planner: plain.planner ?? undefined })).toBe(isrr.task);
    const tampc = taskForRun(isrr.task, { planner: parseRunSpec('coarse/tampc').planner ?? undefined });
    expect(tampc.planner).toEqual({ ...isrr.task.planner, kind: 'tampc' });
    expect(() => parseRunSpec('fine/mppi')).toThrow(/unknown planner "mppi" \(expected mpc, tampc, uampc\)/);
    expect(() => parseRunSpec('fine/mpc/tampc')).toThrow(/at most one/);
  });
});

describe('experiment runner', () => {
  it('runs every scene and model once, resumes without rerunning, and shards merge to the same set', async () => {
    const task = tinyTask(isrr.task);
    const base = {
      task: 'isrr-obstacle',
      models: ['coarse'],
      scenes: 3,
      seed: 5,
      taskDef: task,
      scene: isrr.scene,
      workers: 1,
    };
    const whole = path.join(tmp, 'whole');
    const first = await runExperiment({ ...base, outDir: whole, shard: { index: 0, count: 1 } });
    expect(first).toEqual({ ran: 3, skipped: 0 });
    const again = await runExperiment({ ...base, outDir: whole, shard: { index: 0, count: 1 } });
    expect(again).toEqual({ ran: 0, skipped: 3 });
    const recs = readRunRecords(whole).sort((a, b) => a.scene - b.scene);
    expect(recs.map((r) => r.scene)).toEqual([0, 1, 2]);
    for (const r of recs) expect(r.summary.actions).toBeLessThanOrEqual(2);
    // Each run says how busy the machine was when it started, beside its wall time.
    for (const r of recs) expect(r.loadAtStart).toBeGreaterThanOrEqual(0);

    const s0 = path.join(tmp, 's0');
    const s1 = path.join(tmp, 's1');
    await runExperiment({ ...base, outDir: s0, shard: { index: 0, count: 2 } });
    await runExperiment({ ...base, outDir: s1, shard: { index: 1, count: 2 } });
    const sharded = [...readRunRecords(s0), ...readRunRecords(s1)].sort((a, b) => a.scene - b.scene);
    // Same seeds, same scenes: the sharded runs reproduce the unsharded ones exactly.
    expect(sharded.map((r) => r.summary.states)).toEqual(recs.map((r) => r.summary.states));
  });

  it('compares coarse models (model@learned) and planners (model/planner) in one experiment', async () => {
    const task = tinyTask(isrr.task, { tampc: { minActions: 2 } });
    const out = path.join(tmp, 'learned');
    await runExperiment({
      task: 'isrr-obstacle',
      models: ['coarse', 'coarse@learned', 'coarse/uampc'],
      scenes: 1,
      seed: 2,
      taskDef: task,
      scene: isrr.scene,
      workers: 1,
      outDir: out,
      shard: { index: 0, count: 1 },
    });
    const recs = readRunRecords(out);
    expect(recs.map((r) => r.model).sort()).toEqual(['coarse', 'coarse/uampc', 'coarse@learned']);
    expect(recs.find((r) => r.model === 'coarse/uampc')!.planner).toBe('uampc');
    expect(recs.find((r) => r.model === 'coarse')!.planner).toBe('mpc');
    const [analytical, learned] = ['coarse', 'coarse@learned'].map((m) => recs.find((r) => r.model === m)!);
    // Same start state, different predictions: the plans (and so the executed pushes) differ.
    expect(learned!.summary.states[0]).toEqual(analytical!.summary.states[0]);
    expect(learned!.summary.controls).not.toEqual(analytical!.summary.controls);
  });
});
