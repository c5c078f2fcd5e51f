/**
 * How a run may end without success, and which of those ends a paper sets. A task ends a run at
 * its time limit (planning wall time plus execution) or at its action cap (`maxExecutedActions`),
 * whichever comes first; the stored outcomes are `time-limit` and `action-limit`. ISRR 2019 ends
 * a run after 20 actions (Sec. IV-B1), WAFR 2018's push planning after 3 minutes (Sec. 7.1), and
 * CVS 2020 states no limit: any other limit is the project's, and a run it ends is reported as its
 * own outcome, never as the paper's.
 */
import path from 'node:path';
import { tasksDir } from '../common/paths';
import { actionCap, loadTaskFile, type Task } from '../planning/task-file';

export interface RunLimits {
  /** Task time (s) at which a run ends unsuccessfully. */
  timeLimit: number;
  /** Executed actions at which a run ends unsuccessfully (a task without a cap: the safety ceiling). */
  maxExecutedActions: number;
}

/** The limits a task sets. */
export function runLimits(t: Task): RunLimits {
  return { timeLimit: t.planner.timeLimit, maxExecutedActions: actionCap(t.planner) };
}

/** The limits of a shipped task as its file sets them now. */
export function taskLimits(task: string): RunLimits {
  return runLimits(loadTaskFile(path.join(tasksDir, `${task}.json`)).task);
}

/** The limit a paper sets for a shipped task: which kind, and where the paper says so. */
export interface PaperLimit {
  kind: 'time-limit' | 'action-limit';
  value: number;
  source: string;
}

const WAFR_TIME: PaperLimit = { kind: 'time-limit', value: 180, source: 'WAFR 2018, Sec. 7.1: 3 minutes' };

/** The papers' own run limits by task (the tasks not named here take theirs from no paper). */
export const PAPER_LIMITS: Readonly<Record<string, readonly PaperLimit[]>> = {
  'isrr-obstacle': [{ kind: 'action-limit', value: 20, source: 'ISRR 2019, Sec. IV-B1: 20 actions' }],
  'wafr-low-accuracy': [WAFR_TIME],
  'wafr-high-accuracy': [WAFR_TIME],
  'wafr-changing': [WAFR_TIME],
  'wafr-l-shape': [WAFR_TIME],
};

/** Whether an outcome key of summary.json is a limit no paper sets for this task. */
export function isProjectLimit(task: string, outcome: string): boolean {
  if (outcome !== 'time-limit' && outcome !== 'action-limit') return false;
  return !(PAPER_LIMITS[task] ?? []).some((l) => l.kind === outcome);
}

/**
 * An outcome key of summary.json in words, with the limit that ended the run: "action cap (40
 * actions, the project's)", "time limit (180 s)", "failure: off-table".
 */
export function outcomeText(task: string, outcome: string, limits: RunLimits): string {
  const own = isProjectLimit(task, outcome) ? ", the project's" : '';
  if (outcome === 'action-limit') return `action cap (${limits.maxExecutedActions} actions${own})`;
  if (outcome === 'time-limit') return `time limit (${limits.timeLimit} s${own})`;
  if (outcome.startsWith('failure:')) return `failure: ${outcome.slice('failure:'.length)}`;
  return outcome;
}
