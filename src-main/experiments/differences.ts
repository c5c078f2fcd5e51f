/**
 * Whether two models of one experiment differ, on the scenes both ran (every model of an
 * experiment runs the same scenes and seeds, so runs pair up by scene): success by McNemar's exact
 * test, task time by the Wilcoxon signed-rank test with a failed run at the task's time limit
 * (significance.ts says why), as the results page's and a noise sweep's "Differences" tables print
 * them.
 */
import type { RunRecord } from './run-record';
import { mcnemarExact, wilcoxonSignedRank } from './significance';

/** A run's task time for the paired test: its own when it succeeded, the time limit when not. */
export const censoredTime = (r: RunRecord, timeLimit: number): number =>
  r.summary.outcome === 'success' ? r.summary.taskTime : timeLimit;

export interface ModelDifference {
  a: string;
  b: string;
  /** Scenes both models ran. */
  scenes: number;
  /** Successes of each on those scenes. */
  successesA: number;
  successesB: number;
  /** Scenes only model a succeeded on, and only model b. */
  onlyA: number;
  onlyB: number;
  /** Two-sided p of McNemar's exact test on success. */
  pSuccess: number;
  /** The time limit a failed run's time is set to (s). */
  timeLimit: number;
  /** Median task time of each with failures at the limit (s). */
  medianA: number;
  medianB: number;
  /** Which model the signed ranks favour: 'a' faster, 'b' faster, or neither. */
  faster: 'a' | 'b' | null;
  /** Two-sided p of the signed-rank test on the censored times. */
  pTime: number;
}

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** The paired comparison of two sets of runs of one experiment (by scene), or null when none pair. */
export function pairedDifference(
  a: string,
  runsA: readonly RunRecord[],
  b: string,
  runsB: readonly RunRecord[],
  timeLimit: number,
): ModelDifference | null {
  const byScene = new Map(runsB.map((r) => [r.scene, r]));
  const pairs = runsA.flatMap((ra) => {
    const rb = byScene.get(ra.scene);
    return rb ? [[ra, rb] as const] : [];
  });
  if (pairs.length === 0) return null;
  const ok = (r: RunRecord): boolean => r.summary.outcome === 'success';
  const onlyA = pairs.filter(([x, y]) => ok(x) && !ok(y)).length;
  const onlyB = pairs.filter(([x, y]) => !ok(x) && ok(y)).length;
  const timesA = pairs.map(([x]) => censoredTime(x, timeLimit));
  const timesB = pairs.map(([, y]) => censoredTime(y, timeLimit));
  const test = wilcoxonSignedRank(timesA.map((t, i) => t - timesB[i]!));
  const centre = (test.n * (test.n + 1)) / 4;
  return {
    a,
    b,
    scenes: pairs.length,
    successesA: pairs.filter(([x]) => ok(x)).length,
    successesB: pairs.filter(([, y]) => ok(y)).length,
    onlyA,
    onlyB,
    pSuccess: mcnemarExact(onlyA, onlyB),
    timeLimit,
    medianA: median(timesA),
    medianB: median(timesB),
    // W+ sums the ranks where a took longer: above its centre, b is the faster.
    faster: test.n === 0 || test.statistic === centre ? null : test.statistic > centre ? 'b' : 'a',
    pTime: test.p,
  };
}

/** Every pair of `models` (in their order) that both have runs among `runs`. */
export function modelDifferences(
  models: readonly string[],
  runs: readonly RunRecord[],
  timeLimit: number,
): ModelDifference[] {
  const runsOf = (model: string): readonly RunRecord[] => runs.filter((r) => r.model === model);
  const out: ModelDifference[] = [];
  for (let i = 0; i < models.length; i++)
    for (let j = i + 1; j < models.length; j++) {
      const d = pairedDifference(models[i]!, runsOf(models[i]!), models[j]!, runsOf(models[j]!), timeLimit);
      if (d) out.push(d);
    }
  return out;
}

export const pText = (p: number): string => (Number.isNaN(p) ? '–' : p < 0.001 ? '< 0.001' : p.toFixed(3));
const differs = (p: number): string => (p < 0.05 ? ' **(differ)**' : '');

/** One pair's cells: the models, successes and p, median censored task times and p (p < 0.05 marked). */
function differenceCells(d: ModelDifference): string[] {
  return [
    `${d.a} vs ${d.b}`,
    `${d.successesA}/${d.scenes} vs ${d.successesB}/${d.scenes}`,
    `${d.onlyA} vs ${d.onlyB}`,
    `${pText(d.pSuccess)}${differs(d.pSuccess)}`,
    `${d.medianA.toFixed(1)} vs ${d.medianB.toFixed(1)}`,
    `${pText(d.pTime)}${differs(d.pTime)}`,
  ];
}

const tableRow = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;

/** The words that say what the "Differences" tables' tests are. */
export const PAIRED_TESTS =
  "paired by scene; two-sided p; McNemar's exact test on success, the Wilcoxon signed-rank test (exact) on task time with a failed run at the task's time limit";

/**
 * The "Differences" table's Markdown lines: what its tests are and over how many comparisons its
 * p-values go uncorrected (`counted`: what the rows are, "pairs"), then one row per difference,
 * its `lead` cells (under `leadHeader`, e.g. the noise level) before the pair's.
 */
export function differencesTable(
  title: string,
  counted: string,
  rows: readonly { lead?: readonly string[]; difference: ModelDifference }[],
  leadHeader: readonly string[] = [],
): string[] {
  if (rows.length === 0) return [];
  const limit = rows[0]!.difference.timeLimit;
  const header = [
    ...leadHeader,
    'models',
    'success',
    'only one succeeded',
    'p',
    `median task time, failures at ${limit} s (s)`,
    'p',
  ];
  return [
    `${title} (${PAIRED_TESTS}; p < 0.05 is marked, uncorrected for the ${rows.length} ${counted}):`,
    '',
    tableRow(header),
    tableRow(header.map(() => '---')),
    ...rows.map((r) => tableRow([...(r.lead ?? []), ...differenceCells(r.difference)])),
    '',
  ];
}
