/**
 * How the Sessions view describes a session log in words: date, scene, model, the lab it ran on,
 * outcome and duration, and, for logs that cannot be played, why not. Outcomes read the same
 * whoever recorded the log (the console or `parapush run`, today or before the words were one).
 */
import type { SessionListingInfo, SessionSummary } from '#contract/console-api';
import { taskResultSchema } from '#contract/planner-events';
import { runOutcomeOf, type RunEnd, runOutcomeSchema } from '#contract/run-end';

export interface SessionRow {
  file: string;
  date: string;
  scene: string;
  /** The model: for auto, which it chose and on how many workers ("auto: fine, 2 workers"). */
  model: string;
  /** Why auto chose its model, as the run logged it; null when not auto or not recorded. */
  modelReason: string | null;
  /** The lab the run was on: virtual, real, mixed or unknown (older logs do not say). */
  lab: string;
  outcome: string;
  duration: string;
  /** The log's state in words ("complete", "recording", "needs recovery", "unreadable"). */
  state: string;
  /** Only complete logs can be opened. */
  openable: boolean;
  /** Cut short or damaged: the operator may recover it (after confirming). */
  recoverable: boolean;
  /** Why the log cannot be opened, or what was done to it; null when nothing to say. */
  note: string | null;
}

const stateWords: Record<SessionListingInfo['state'], string> = {
  complete: 'complete',
  recording: 'recording',
  'needs-recovery': 'needs recovery',
  unreadable: 'unreadable',
};

/** Seconds as m:ss (or h:mm:ss), the way a run timer reads. */
export function formatDuration(seconds: number): string {
  const whole = Math.max(0, Math.round(seconds));
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const s = String(whole % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/** Local date and time, to the second, of a wall clock in s since the epoch: 2024-05-01 10:20:30. */
export function formatDate(seconds: number): string {
  const d = new Date(seconds * 1000);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** Session start (s since the epoch) from the file name (2024-05-01T10-20-30-123Z_dry.mcap) when the log has no summary. */
function dateFromFileName(file: string): number | null {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z/.exec(file);
  if (!m) return null;
  const ms = Date.parse(`${m[1]}T${m[2]}:${m[3]}:${m[4]}.${m[5]}Z`);
  return Number.isFinite(ms) ? ms / 1000 : null;
}

/** Words older `parapush run` logs recorded for a run that ended before its task: what ended it. */
const olderEnds: Record<string, { end: RunEnd; words: string }> = {
  stopped: { end: { cause: 'safety-stop' }, words: 'safety stop' },
  refused: { end: { cause: 'not-armed' }, words: 'not armed' },
};

/**
 * One wording of how a run ended, the run's outcome (finished, aborted, failed). Older logs and
 * `parapush run` recorded the task's result instead (success, failure, action-limit, time-limit)
 * or what ended the run first (stopped, refused): each reads as the run's outcome it gives
 * (contract/run-end.ts), a limit or a cause named. Other words (interrupted, unknown) are kept.
 */
export function outcomeWords(outcome: string): string {
  if (runOutcomeSchema.safeParse(outcome).success) return outcome;
  const older = olderEnds[outcome];
  if (older) return `${runOutcomeOf(older.end)} (${older.words})`;
  const task = taskResultSchema.safeParse(outcome);
  if (!task.success) return outcome;
  const run = runOutcomeOf({ cause: 'task', result: task.data });
  return task.data.endsWith('-limit') ? `${run} (${task.data.replace('-', ' ')})` : run;
}

/**
 * The lab a session ran on, as the log recorded it. An experiment's run had none (it ran in the
 * simulated world). A log from before logs named their lab says so, except a console dry run:
 * those always ran on the console's own virtual lab.
 */
export function labWords(summary: Pick<SessionSummary, 'lab' | 'mode' | 'origin'>): string {
  const { lab, mode } = summary;
  if (summary.origin === 'experiment') return 'none: an experiment run in the simulated world';
  const dry = mode === 'dry' ? ', dry run' : '';
  switch (lab) {
    case 'virtual':
      return `virtual${dry}`;
    case 'real':
      return `real${dry}`;
    case 'mixed':
      return `mixed: virtual and real devices${dry}`;
    case 'unknown':
      return `unknown: its devices did not say${dry}`;
    default:
      return mode === 'dry' ? 'virtual, dry run' : 'unknown (recorded before logs named their lab)';
  }
}

export function describeSession(s: SessionListingInfo): SessionRow {
  const summary = s.summary;
  const started = summary?.startedAt ?? dateFromFileName(s.file);
  let outcome = summary ? outcomeWords(summary.outcome) : '—';
  if (summary?.recovered) outcome = `${outcome} (recovered)`;
  const openable = s.state === 'complete';
  let note: string | null = null;
  if (s.state === 'recording') note = 'A run is writing this log now; open it once the run has ended.';
  else if (s.state === 'needs-recovery')
    note = `Cut short or damaged (${s.problem ?? 'no summary'}); Recover rewrites it once you confirm (or run parapush log recover).`;
  else if (s.state === 'unreadable') note = s.problem ?? 'The log cannot be read.';
  else if (summary?.outcomeDetail) note = summary.outcomeDetail;
  return {
    file: s.file,
    date: started === null ? '—' : formatDate(started),
    scene: summary?.scene ?? '—',
    model: summary?.model ?? '—',
    modelReason: summary?.prediction?.reason ?? null,
    lab: summary ? labWords(summary) : '—',
    outcome,
    duration: summary ? formatDuration(summary.duration) : '—',
    state: stateWords[s.state],
    openable,
    recoverable: s.state === 'needs-recovery',
    note,
  };
}

const modelKinds = ['auto', 'fine', 'coarse', 'parareal'] as const;

/**
 * The prediction model a recorded run asked for (auto, fine, coarse, parareal), for the planner
 * readout during playback: from the summary's record, or, for a log summarised before it was kept,
 * from the first word of its model label ("auto (fine or Parareal)", "fine (MuJoCo)", ...); null
 * when neither says.
 */
export function requestedModel(
  summary: SessionSummary | null | undefined,
): (typeof modelKinds)[number] | null {
  if (!summary) return null;
  if (summary.prediction) return summary.prediction.requested;
  const word = summary.model?.split(/[\s:(]/)[0];
  return modelKinds.find((k) => k === word) ?? null;
}
