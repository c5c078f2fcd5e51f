/**
 * `parapush experiment sweep`: one experiment folder per noise level, the sweep's sweep.json,
 * results.md and plots over the levels, and its section in the generated results page.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generatedResults } from '../../src-main/experiments/results-page';
import { readRunRecords, writeRunRecord, type RunRecord } from '../../src-main/experiments/run-record';
import { claimOutDir, readExperimentFile } from '../../src-main/experiments/runner';
import { writeVerificationRecord } from '../../src-main/experiments/verification';
import { meanCi95, wilsonInterval } from '../../src-main/experiments/stats';
import {
  levelDir,
  readSweepFile,
  readSweepRuns,
  runSweep,
  writeSweepReport,
} from '../../src-main/experiments/sweep';
import { modelDifferences } from '../../src-main/experiments/differences';
import { writeReport } from '../../src-main/experiments/report';
import { loadTaskFile } from '../../src-main/planning/task-file';
import { repoRoot } from '../helpers/scenes';
import { runRecord, tinyTask } from '../helpers/tiny-task';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'parapush-sweep-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const models = ['coarse/tampc', 'coarse/mpc'];
const config = { task: 'wafr-low-accuracy', models, scenes: 3, seed: 1 };

const record = (model: string, scene: number, outcome: 'success' | 'failure', taskTime: number): RunRecord =>
  runRecord(model, scene, outcome, taskTime, 'wafr-low-accuracy');

/**
 * A sweep folder of three levels, written as the runner writes its folders: TAMPC succeeds on
 * every scene, MPC loses one scene more at each level.
 */
function syntheticSweep(dir: string): void {
  // Written out of order: the report sorts levels by b.
  for (const [b, mpcFailures] of [
    [0.1, 2],
    [0, 0],
    [0.05, 1],
  ] as const) {
    const level = levelDir(dir, b);
    claimOutDir(level, { ...config, noiseSlope: b });
    for (let s = 0; s < 3; s++) {
      writeRunRecord(level, record('coarse/tampc', s, 'success', 4 + s + 10 * b));
      writeRunRecord(level, record('coarse/mpc', s, s < mpcFailures ? 'failure' : 'success', 20 + s));
    }
  }
}

/** A repository root with no experiments yet, for generatedResults (stale.json: none stale). */
function resultsRoot(name: string): string {
  const root = path.join(tmp, name);
  mkdirSync(path.join(root, 'docs/experiments'), { recursive: true });
  cpSync(path.join(repoRoot, 'README.md'), path.join(root, 'README.md'));
  cpSync(path.join(repoRoot, 'docs/cluster.md'), path.join(root, 'docs/cluster.md'));
  cpSync(path.join(repoRoot, 'bench/results'), path.join(root, 'bench/results'), { recursive: true });
  cpSync(
    path.join(repoRoot, 'docs/experiments/papers.json'),
    path.join(root, 'docs/experiments/papers.json'),
  );
  writeFileSync(path.join(root, 'docs/experiments/stale.json'), '[]');
  return root;
}

describe('sweep report', () => {
  const dir = path.join(tmp, 'synthetic');
  syntheticSweep(dir);
  const sweep = writeSweepReport(dir);

  it('summarizes each level and model: successes with Wilson intervals, times of successful and of all runs', () => {
    expect(sweep.levels.map((l) => [l.noiseSlope, l.folder])).toEqual([
      [0, 'b-0'],
      [0.05, 'b-0.05'],
      [0.1, 'b-0.1'],
    ]);
    expect(sweep).toMatchObject({ task: 'wafr-low-accuracy', models, scenes: 3, seed: 1 });
    expect(sweep.command).toContain('--noise-slopes 0,0.05,0.1 ');
    const mpc = sweep.levels.map((l) => l.models.find((m) => m.model === 'coarse/mpc')!);
    expect(mpc.map((m) => m.successes)).toEqual([3, 2, 1]);
    const w = wilsonInterval(1, 3);
    expect([mpc[2]!.successLow, mpc[2]!.successHigh]).toEqual([w.low, w.high]);
    // b = 0.1: MPC succeeded on scene 2 only (22 s); all runs count the failures at their end.
    expect(mpc[2]!.taskTime).toEqual({ mean: 22, ci95: 0, n: 1 });
    expect(mpc[2]!.taskTimeAll).toEqual(meanCi95([20, 21, 22]));
    // What is stored is what is read back.
    expect(readSweepFile(dir)).toEqual(sweep);
  });

  it('writes a table linking every level folder, and both plots with one line and interval bars per planner', () => {
    const md = readFileSync(path.join(dir, 'results.md'), 'utf8');
    expect(md).toContain('| [0.05](b-0.05/results.md) | coarse/mpc | 3 | 2/3 = 67% (');
    expect(md.match(/^\| \[/gm)).toHaveLength(6);
    for (const f of ['success.svg', 'task-time.svg']) {
      const svg = readFileSync(path.join(dir, f), 'utf8');
      expect(svg).toMatch(/^<svg[\s\S]*<\/svg>\n$/);
      expect([...svg.matchAll(/<path d="/g)]).toHaveLength(2);
      expect(svg).toContain('>coarse/tampc</text>');
      const ticks = [...svg.matchAll(/class="tick"[^>]*>([^<]*)</g)].map((m) => m[1]);
      expect(ticks).toEqual(expect.arrayContaining(['0', '0.05', '0.1']));
    }
    const success = readFileSync(path.join(dir, 'success.svg'), 'utf8');
    // Every level and planner has a Wilson interval; the rate axis ends at 1.
    expect([...success.matchAll(/class="error-bar"/g)]).toHaveLength(6);
    expect(success).toContain('>1.00</text>');
    // TAMPC's times vary by scene at every level: each point has its 95% CI bar.
    const time = readFileSync(path.join(dir, 'task-time.svg'), 'utf8');
    expect([...time.matchAll(/class="error-bar"/g)]).toHaveLength(6);
  });

  it('refuses levels that are not one experiment apart from b, and a folder named for another b', () => {
    const mixed = path.join(tmp, 'mixed');
    claimOutDir(levelDir(mixed, 0), { ...config, noiseSlope: 0 });
    claimOutDir(levelDir(mixed, 0.1), { ...config, scenes: 4, noiseSlope: 0.1 });
    expect(() => writeSweepReport(mixed)).toThrow(/another experiment than b-0 apart from b/);
    const misnamed = path.join(tmp, 'misnamed');
    claimOutDir(levelDir(misnamed, 0.05), { ...config, noiseSlope: 0.1 });
    expect(() => writeSweepReport(misnamed)).toThrow(/ran at noise slope 0.1, not 0.05/);
    expect(() => writeSweepReport(path.join(tmp, 'none'))).toThrow(/no level folders/);
  });

  it('gets a section of its own in the generated results page', () => {
    const root = resultsRoot('root');
    writeFileSync(
      path.join(root, 'docs/experiments/stale.json'),
      '[{"experiment": "wafr-sweep/b-0.1", "reason": "x"}]',
    );
    cpSync(dir, path.join(root, 'docs/experiments/wafr-sweep'), { recursive: true });
    const page = generatedResults(root)['docs/results.md'];
    expect(page).toContain('## wafr-sweep\n');
    expect(page).toContain('**Stale:** b = 0.1: x');
    expect(page).toContain('| [0.05](experiments/wafr-sweep/b-0.05/results.md) | coarse/mpc |');
    // Its differences, paired by scene from the level folders' runs: at b = 0.1, TAMPC 3/3 against
    // MPC 1/3, MPC's two failures at the 180 s limit.
    expect(page).toContain(
      '| 0.1 | coarse/tampc vs coarse/mpc | 3/3 vs 1/3 | 2 vs 0 | 0.500 | 6.0 vs 180.0 | 0.250 |',
    );
    expect(page).toContain('![wafr-sweep: success rate against noise](experiments/wafr-sweep/success.svg)');
    expect(page).toContain('(experiments/wafr-sweep/task-time.svg)');
  });
});

describe('task success by reading of the noise', () => {
  /**
   * wafr-low-accuracy's sweep under its task file's reading (variance-per-step) and under std:
   * at b = 0.1, MPC fails scenes 0-3 of 4 under the task's reading and none under std; b = 0 under the
   * task file's reading only, as committed.
   */
  function readingSweep(dir: string, noiseReading?: 'std'): void {
    for (const b of noiseReading ? [0.05, 0.1] : [0, 0.05, 0.1]) {
      const level = levelDir(dir, b);
      claimOutDir(level, { ...config, scenes: 4, noiseSlope: b, ...(noiseReading ? { noiseReading } : {}) });
      for (let s = 0; s < 4; s++) {
        writeRunRecord(level, record('coarse/tampc', s, 'success', 5));
        const fails = !noiseReading && b === 0.1;
        writeRunRecord(level, record('coarse/mpc', s, fails ? 'failure' : 'success', 20));
      }
    }
    writeSweepReport(dir);
  }

  it("pairs each reading's runs with the task file's reading in docs/noise.md, and files each level under its reading", () => {
    const root = resultsRoot('readings');
    cpSync(path.join(repoRoot, 'docs/noise.md'), path.join(root, 'docs/noise.md'));
    readingSweep(path.join(root, 'docs/experiments/wafr-sweep'));
    readingSweep(path.join(root, 'docs/experiments/wafr-sweep-std'), 'std');
    // Every level of the task file's sweep repeated in full at one commit, named beside its own.
    for (const b of [0, 0.05, 0.1])
      writeVerificationRecord(
        levelDir(path.join(root, 'docs/experiments/wafr-sweep'), b),
        { index: 0, count: 1 },
        {
          commit: 'a'.repeat(40),
          models,
          scenes: [0, 1, 2, 3],
        },
      );
    const noise = generatedResults(root)['docs/noise.md']!;
    expect(noise).toContain(
      'Task success on wafr-low-accuracy under each reading (variance-per-step: wafr-sweep',
    );
    expect(noise).toContain('every run repeated at `aaaaaaa`); std: wafr-sweep-std (commit `');
    expect(noise).toContain('| b | model | variance-per-step | std |');
    expect(noise).toContain('| 0.05 | coarse/mpc | 4/4 | 4/4 (0 vs 0, p = 1.000) |');
    // Four scenes won under std alone: McNemar's exact p = 2 / 2^4.
    expect(noise).toContain('| 0.1 | coarse/mpc | 0/4 | 4/4 (4 vs 0, p = 0.125) |');
    expect(noise).toContain('| every level | every model | 12/16 | 16/16 |');
    // b = 0 is the same runs under every reading: the task file's sweep holds it alone.
    expect(noise).not.toMatch(/^\| 0 \| coarse/m);
    const readingRow = (r: string): string | undefined =>
      noise.split('\n').find((l) => l.startsWith(`| ${r} | b‖u‖`));
    expect(readingRow('std')).toContain('wafr-sweep-std/b-0.05, wafr-sweep-std/b-0.1');
    expect(readingRow('variance-per-step')).not.toContain('wafr-sweep-std');
    // The sweep's own report names its reading.
    expect(generatedResults(root)['docs/experiments/wafr-sweep-std/results.md']).toMatch(
      /^### wafr-low-accuracy: noise sweep, b\|u\| read as std\n/,
    );
  });
});

/**
 * Two planners over ten scenes at three levels, for the differences table: at b = 0 TAMPC
 * succeeds everywhere and MPC nowhere; at b = 0.05 both always succeed, with overlapping times;
 * at b = 0.1 both succeed on the same three scenes, TAMPC in 4-6 s and MPC in 20-22 s.
 */
function differencesSweep(dir: string): void {
  const at = (b: number, s: number, model: string): [outcome: 'success' | 'failure', time: number] => {
    const tampc = model === 'coarse/tampc';
    if (b === 0) return tampc ? ['success', 4 + 0.1 * s] : ['failure', 30];
    if (b === 0.05) return ['success', tampc ? 10 + ((7 * s) % 10) : 11 + ((3 * s) % 10)];
    return s < 3 ? ['success', (tampc ? 4 : 20) + s] : ['failure', 30];
  };
  for (const b of [0, 0.05, 0.1]) {
    const level = levelDir(dir, b);
    claimOutDir(level, { ...config, scenes: 10, noiseSlope: b });
    for (let s = 0; s < 10; s++)
      for (const model of models) writeRunRecord(level, record(model, s, ...at(b, s, model)));
  }
}

describe('differences between planners in a sweep', () => {
  const dir = path.join(tmp, 'differences');
  differencesSweep(dir);
  const sweep = writeSweepReport(dir);
  const runs = readSweepRuns(dir, sweep);
  // wafr-low-accuracy's time limit, at which a failed run's time is set.
  const limit = 180;
  const [none, low, high] = sweep.levels.map((l) => modelDifferences(models, runs.get(l.folder)!, limit));

  it("pairs each level's runs by scene: McNemar's exact test on success, the signed-rank test on censored times", () => {
    // 10 scenes only TAMPC succeeded on: p = 2 / 2^10 both ways, its times all below the limit.
    expect(none).toHaveLength(1);
    expect(none![0]).toMatchObject({ scenes: 10, onlyA: 10, onlyB: 0, medianB: limit, faster: 'a' });
    expect(none![0]!.pSuccess).toBeCloseTo(2 / 1024, 12);
    expect(none![0]!.pTime).toBeCloseTo(2 / 1024, 12);
    expect(low![0]!.pSuccess).toBe(1);
    // Both fail on 7 scenes (tied at the limit, left out); on 3 TAMPC is 16 s faster: W+ = 0 of
    // 2^3 sign assignments, p = 2/8.
    expect(high![0]).toMatchObject({
      successesA: 3,
      successesB: 3,
      onlyA: 0,
      onlyB: 0,
      pSuccess: 1,
      faster: 'a',
    });
    expect(high![0]!.pTime).toBeCloseTo(0.25, 12);
  });

  it('prints one row per level and pair in results.md, p < 0.05 marked and the count of comparisons stated', () => {
    const md = readFileSync(path.join(dir, 'results.md'), 'utf8');
    expect(md).toContain('uncorrected for the 3 pairs over all levels):');
    expect(md).toContain(
      '| b | models | success | only one succeeded | p | median task time, failures at 180 s (s) | p |',
    );
    expect(md).toMatch(
      /^\| 0 \| coarse\/tampc vs coarse\/mpc \| 10\/10 vs 0\/10 \| 10 vs 0 \| 0\.002 \*\*\(differ\)\*\* \| 4\.\d vs 180\.0 \| 0\.002 \*\*\(differ\)\*\* \|$/m,
    );
    expect(md).toContain(
      '| 0.1 | coarse/tampc vs coarse/mpc | 3/10 vs 3/10 | 0 vs 0 | 1.000 | 180.0 vs 180.0 | 0.250 |',
    );
  });

  it("gives the results page's sweep section the rows the same runs get as an experiment of their own, counted once", () => {
    const root = resultsRoot('differences-root');
    cpSync(dir, path.join(root, 'docs/experiments/sweep'), { recursive: true });
    // Level b = 0.05 again as an ordinary experiment folder, its report written as the runner does.
    const single = path.join(root, 'docs/experiments/single');
    cpSync(levelDir(dir, 0.05), single, { recursive: true });
    writeReport(single, 'single', readRunRecords(single), models);
    const page = generatedResults(root)['docs/results.md'];
    const rowOf = (prefix: string): string | undefined => page.split('\n').find((l) => l.startsWith(prefix));
    expect(rowOf('| coarse/tampc vs coarse/mpc | 10/10 vs 10/10 |')).toMatch(/\| 0\.\d{3} \|$/);
    // The sweep's level holds the same runs as `single`: tested there, not again in the sweep.
    expect(rowOf('| 0.05 | coarse/tampc vs')).toBeUndefined();
    expect(page).toContain('b = 0.05 holds the same runs as single and is tested there, once.');
    expect(page).toContain(
      '| 0 | coarse/tampc vs coarse/mpc | 10/10 vs 0/10 | 10 vs 0 | 0.002 **(differ)** |',
    );
  });
});

describe('runSweep', () => {
  it('runs one resumable experiment folder per level, then the sweep report', async () => {
    const wafr = loadTaskFile(path.join(repoRoot, 'resources/tasks/wafr-low-accuracy.json'));
    const task = tinyTask(wafr.task, { executedActions: 1 });
    const out = path.join(tmp, 'run');
    const runs: string[] = [];
    const options = {
      ...config,
      scenes: 1,
      noiseSlopes: [0, 0.1],
      taskDef: task,
      scene: wafr.scene,
      outDir: out,
      shard: { index: 0, count: 1 },
      workers: 1,
      onRun: (r: { noiseSlope: number; model: string; record: RunRecord | null }) =>
        runs.push(`${r.noiseSlope} ${r.model} ${r.record ? 'ran' : 'kept'}`),
    };
    const sweep = await runSweep(options);
    expect(runs).toEqual([
      '0 coarse/tampc ran',
      '0 coarse/mpc ran',
      '0.1 coarse/tampc ran',
      '0.1 coarse/mpc ran',
    ]);
    for (const b of [0, 0.1]) {
      const level = levelDir(out, b);
      expect(readExperimentFile(level)).toMatchObject({ ...config, scenes: 1, noiseSlope: b });
      expect(readRunRecords(level)).toHaveLength(2);
      for (const f of ['summary.json', 'results.md', 'success.svg', 'task-time.svg'])
        expect(existsSync(path.join(level, f)), f).toBe(true);
    }
    expect(sweep!.levels.map((l) => l.models.map((m) => m.runs))).toEqual([
      [1, 1],
      [1, 1],
    ]);
    expect(readSweepFile(out)).toEqual(sweep);
    // Run again, the sweep resumes: every run is kept, the report is the same.
    runs.length = 0;
    expect(await runSweep(options)).toEqual(sweep);
    expect(runs.every((r) => r.endsWith('kept'))).toBe(true);
  }, 300_000);
});
