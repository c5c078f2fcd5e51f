/**
 * Whether two models of one experiment differ: for every pair, success by Fisher's exact test and
 * the mean task time of successful runs by a permutation test (significance.ts, its default
 * seed), as the results page's and a noise sweep's "Differences" tables print them.
 */
import type { RunRecord } from './run-record';
import { fisherExact, permutationTest } from './significance';

export interface ModelDifference {
  a: string;
  b: string;
  successesA: number;
  runsA: number;
  successesB: number;
  runsB: number;
  /** Two-sided p of Fisher's exact test on success. */
  pSuccess: number;
  /** Task times of the successful runs (s). */
  timesA: readonly number[];
  timesB: readonly number[];
  /** Two-sided p of the permutation test on the mean task time; NaN when a side has no success. */
  pTime: number;
}

/** Every pair of `models` (in their order) that both have runs among `runs`. */
export function modelDifferences(models: readonly string[], runs: readonly RunRecord[]): ModelDifference[] {
  const runsOf = (model: string): readonly RunRecord[] => runs.filter((r) => r.model === model);
  const out: ModelDifference[] = [];
  for (let i = 0; i < models.length; i++)
    for (let j = i + 1; j < models.length; j++) {
      const ra = runsOf(models[i]!);
      const rb = runsOf(models[j]!);
      if (ra.length === 0 || rb.length === 0) continue;
      const okA = ra.filter((r) => r.summary.outcome === 'success');
      const okB = rb.filter((r) => r.summary.outcome === 'success');
      const timesA = okA.map((r) => r.summary.taskTime);
      const timesB = okB.map((r) => r.summary.taskTime);
      out.push({
        a: models[i]!,
        b: models[j]!,
        successesA: okA.length,
        runsA: ra.length,
        successesB: okB.length,
        runsB: rb.length,
        pSuccess: fisherExact(okA.length, ra.length, okB.length, rb.length),
        timesA,
        timesB,
        pTime: permutationTest(timesA, timesB),
      });
    }
  return out;
}

const pText = (p: number): string => (Number.isNaN(p) ? '–' : p < 0.001 ? '< 0.001' : p.toFixed(3));
const differs = (p: number): string => (p < 0.05 ? ' **(differ)**' : '');
const meanText = (xs: readonly number[]): string =>
  xs.length ? (xs.reduce((s, x) => s + x, 0) / xs.length).toFixed(1) : '–';

/** One pair's cells: the models, successes and p, mean task times and p (p < 0.05 marked). */
function differenceCells(d: ModelDifference): string[] {
  return [
    `${d.a} vs ${d.b}`,
    `${d.successesA}/${d.runsA} vs ${d.successesB}/${d.runsB}`,
    `${pText(d.pSuccess)}${differs(d.pSuccess)}`,
    `${meanText(d.timesA)} vs ${meanText(d.timesB)}`,
    `${pText(d.pTime)}${differs(d.pTime)}`,
  ];
}

const tableRow = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;

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
  const header = [...leadHeader, 'models', 'success', 'p', 'task time, successful runs (s)', 'p'];
  return [
    `${title} (two-sided p; Fisher's exact test on success, a permutation test on the mean task time of successful runs; p < 0.05 is marked, uncorrected for the ${rows.length} ${counted}):`,
    '',
    tableRow(header),
    tableRow(header.map(() => '---')),
    ...rows.map((r) => tableRow([...(r.lead ?? []), ...differenceCells(r.difference)])),
    '',
  ];
}
