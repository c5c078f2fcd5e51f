/**
 * The papers' claims scored against the committed experiments (docs/experiments/papers.json):
 * point figures (a success rate, a task time) against our 95% interval, and relative claims (one
 * model better than another, or no different) by the paired tests of differences.ts on the scenes
 * both sides ran. A relative claim is measured only when both sides ran in one run of the code:
 * the same commit, task, seed and scenes; for success, also when every run of both sides was
 * repeated bit for bit at one commit (`verify --full`), since an outcome is then what that commit
 * produces, unless a run ended at a wall-clock time limit, which a repeat does not fix. Times on
 * the papers' hardware (minutes on a 2013 quad-core) are kept for reference and never scored.
 */
import { z } from 'zod';
import type { RunRecord } from './run-record';
import type { ExperimentFile } from './runner';
import type { SummaryRow } from './summary-file';
import { pairedDifference, pText, type ModelDifference } from './differences';

/** A figure a paper states for one row of one experiment: a success rate (0..1) or a task time (s). */
export const paperFigureSchema = z
  .object({
    experiment: z.string(),
    model: z.string(),
    metric: z.enum(['success', 'task-time']),
    value: z.number().min(0),
    /** Where the paper says it, e.g. "ISRR 2019, Sec. IV-B1". */
    source: z.string(),
  })
  .strict();
export type PaperFigure = z.infer<typeof paperFigureSchema>;

const sideSchema = z.object({ experiment: z.string(), model: z.string() }).strict();

/** A paper's claim that model a is better than b (or no different) on one measure. */
export const relativeClaimSchema = z
  .object({
    /** What the paper claims, in words: "Parareal K = 2 completes the task faster than the fine model". */
    claim: z.string(),
    source: z.string(),
    metric: z.enum(['success', 'task-time']),
    /** better: a succeeds more often or finishes sooner than b; similar: no difference. */
    relation: z.enum(['better', 'similar']),
    a: sideSchema,
    b: sideSchema,
    /** The paper's own figures for it, on its hardware: shown, never scored. */
    reference: z.string().optional(),
    /** The measured cause, shown when the claim is contradicted. */
    cause: z.string().optional(),
    /** The experiment that would measure the claim in one run, shown when it is not measured. */
    missing: z.string().optional(),
  })
  .strict();
export type RelativeClaim = z.infer<typeof relativeClaimSchema>;

export const papersFileSchema = z
  .object({
    /** Point figures, scored against our interval. */
    figures: z.array(paperFigureSchema),
    /** Relative claims, scored by paired tests. */
    claims: z.array(relativeClaimSchema),
  })
  .strict();
export type PapersFile = z.infer<typeof papersFileSchema>;

/** One experiment as the claims see it: its identity and runs (sweep levels named NAME/b-<b>). */
export interface ClaimExperiment {
  name: string;
  file: ExperimentFile;
  runs: readonly RunRecord[];
  /** The task's time limit, at which a failed run's time is set (s). */
  timeLimit: number;
  /** The clean commits at which every run was repeated bit for bit (verification.ts). */
  repeatedAt: readonly string[];
  /** Why its runs no longer stand for the current code, when stale.json lists it. */
  stale?: string;
}

export type ClaimVerdict = 'reproduces' | 'contradicted' | 'not shown' | 'not measured';

export interface ScoredClaim {
  claim: RelativeClaim;
  verdict: ClaimVerdict;
  /** The paired comparison on shared scenes (also when not measured in one run, for reference). */
  difference: ModelDifference | null;
  /** Why it is not measured, when it is not. */
  why: string | null;
}

const P = 0.05;

/**
 * Whether two experiments are one run of the code for `metric`: same task and seed, and the same
 * clean commit; for success, a commit at which both were repeated in full also counts (see top),
 * unless one of the claim's runs (`sides`) ended at the time limit.
 */
function oneRun(
  x: ClaimExperiment,
  y: ClaimExperiment,
  metric: RelativeClaim['metric'],
  sides: readonly RunRecord[],
): string | null {
  if (x.file.task !== y.file.task || x.file.seed !== y.file.seed) return 'the sides ran other tasks or seeds';
  const clean = (c: string): boolean => !c.endsWith('-dirty');
  if (x.file.commit === y.file.commit && clean(x.file.commit)) return null;
  const ranAt = [x, y].every((e) => clean(e.file.commit))
    ? `the sides ran at commits ${x.file.commit.slice(0, 7)} and ${y.file.commit.slice(0, 7)}`
    : 'a side ran on uncommitted code';
  if (metric !== 'success') return ranAt;
  const at = (e: ClaimExperiment): string[] => [e.file.commit, ...e.repeatedAt].filter(clean);
  if (!at(x).some((c) => at(y).includes(c)))
    return `${ranAt}, with no full verification of both at one commit`;
  if (sides.some((r) => r.summary.outcome === 'time-limit'))
    return `${ranAt}; a run ended at the wall-clock time limit, which a repeat does not fix`;
  return null;
}

/** A relative claim against the experiments: the paired test on the scenes both sides ran. */
export function scoreClaim(claim: RelativeClaim, experiments: readonly ClaimExperiment[]): ScoredClaim {
  const find = (name: string): ClaimExperiment | undefined => experiments.find((e) => e.name === name);
  const ea = find(claim.a.experiment);
  const eb = find(claim.b.experiment);
  if (!ea || !eb)
    return {
      claim,
      verdict: 'not measured',
      difference: null,
      why: `no committed experiment ${!ea ? claim.a.experiment : claim.b.experiment}`,
    };
  const stale = [ea, eb].find((e) => e.stale !== undefined);
  // A stale side's runs are from another task or code: they score nothing.
  if (stale)
    return { claim, verdict: 'not measured', difference: null, why: `${stale.name} is listed stale` };
  const runsA = ea.runs.filter((r) => r.model === claim.a.model);
  const runsB = eb.runs.filter((r) => r.model === claim.b.model);
  const difference = pairedDifference(claim.a.model, runsA, claim.b.model, runsB, ea.timeLimit);
  const apart = ea === eb ? null : oneRun(ea, eb, claim.metric, [...runsA, ...runsB]);
  if (!difference) return { claim, verdict: 'not measured', difference, why: 'no scene ran on both sides' };
  if (apart) return { claim, verdict: 'not measured', difference, why: apart };
  const p = claim.metric === 'success' ? difference.pSuccess : difference.pTime;
  const aBetter =
    claim.metric === 'success' ? difference.onlyA > difference.onlyB : difference.faster === 'a';
  const verdict: ClaimVerdict =
    claim.relation === 'similar'
      ? p < P
        ? 'contradicted'
        : 'reproduces'
      : p >= P
        ? 'not shown'
        : aBetter
          ? 'reproduces'
          : 'contradicted';
  return { claim, verdict, difference, why: null };
}

/** What was measured for a claim: both sides' successes or median times, on the shared scenes. */
export function measuredText(s: ScoredClaim): string {
  const d = s.difference;
  if (!d) return '–';
  if (s.claim.metric === 'success') return `${d.successesA}/${d.scenes} vs ${d.successesB}/${d.scenes}`;
  return `median ${d.medianA.toFixed(1)} vs ${d.medianB.toFixed(1)} s (failures at ${d.timeLimit} s)`;
}

/** The paired test's cell: which test, on how many scenes, and its p. */
export function testText(s: ScoredClaim): string {
  const d = s.difference;
  if (!d) return '–';
  return s.claim.metric === 'success'
    ? `McNemar exact, ${d.onlyA} vs ${d.onlyB} discordant of ${d.scenes}: p ${pCell(d.pSuccess)}`
    : `Wilcoxon signed-rank, ${d.scenes} pairs: p ${pCell(d.pTime)}`;
}

const pCell = (p: number): string => {
  const t = pText(p);
  return t.startsWith('<') ? t : `= ${t}`;
};

/** The verdict with what it rests on: the cause of a contradiction, what is missing. */
export function verdictText(s: ScoredClaim): string {
  const head = `**${s.verdict}**`;
  if (s.verdict === 'contradicted' && s.claim.cause) return `${head}: ${s.claim.cause}`;
  if (s.verdict === 'not measured')
    return `${head} in one run (${s.why})${s.claim.missing ? `; missing: ${s.claim.missing}` : ''}`;
  if (s.verdict === 'not shown') return `${head}: no difference at p < ${P}`;
  return head;
}

export type PointVerdict = 'reproduces' | 'betters' | 'falls short' | 'not reproduced';

/**
 * A point figure against our row: inside our 95% interval it reproduces, beyond it on the better
 * side (more successes, less time) betters, on the worse side falls short; but reproducing or
 * bettering needs every relative claim on the same row (experiment and model) reproduced, else it
 * is not reproduced. Null for a task time where no run succeeded.
 */
export function pointVerdict(
  row: SummaryRow,
  figure: PaperFigure,
  claims: readonly ScoredClaim[],
): { verdict: PointVerdict; failing: readonly ScoredClaim[] } | null {
  let v: PointVerdict;
  if (figure.metric === 'success') {
    v =
      figure.value < row.successLow
        ? 'betters'
        : figure.value > row.successHigh
          ? 'falls short'
          : 'reproduces';
  } else {
    const { mean, ci95 } = row.taskTime;
    if (mean === null || ci95 === null) return null;
    v = figure.value > mean + ci95 ? 'betters' : figure.value < mean - ci95 ? 'falls short' : 'reproduces';
  }
  const on = (side: { experiment: string; model: string }): boolean =>
    side.experiment === figure.experiment && side.model === figure.model;
  const failing = claims.filter((c) => (on(c.claim.a) || on(c.claim.b)) && c.verdict !== 'reproduces');
  return { verdict: v !== 'falls short' && failing.length ? 'not reproduced' : v, failing };
}
