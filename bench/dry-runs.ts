/**
 * What an operator gets from *Start dry run*: N console dry runs on the in-process virtual lab,
 * wired as `npm start` wires them (the console core, its run controller, the supervisor, the
 * virtual UR, Robotiq and Motive on loopback, workers one per core), each from the scene file's
 * start with the table reset. Reports how runs end (with 95% Wilson intervals), their time,
 * planning per step against the 1 s control, how often a plan was made twice because the table
 * had moved before it was sent, and every safety stop. How soon a run pushes, for the console's
 * first run (which starts the fine workers of the console's run owner) against its later ones
 * (which find them warm): the time from the operator's start, and from arming, to the first push
 * (the first motion command the virtual controller receives), and the first step's planning time
 * against the run's later steps', each beside its work (the control sequences the plan predicted)
 * and the time per sequence, so a first step that plans more sequences is told from one that
 * plans slower; and per sequence, the workers' CPU time and the MuJoCo solver iterations (counted:
 * the same on a busy machine), and how busy the workers were while the step planned (their CPU
 * time over the planning time of all of them), so a step whose sequences are more work is told
 * from one that ran beside other work on the same cores (docs/planner.md, "The first step").
 * A run plans its first step during pre-flight and arms with it made: arming to
 * first push is then the loop's confirmation of that plan; how many first steps were sent as
 * planned before arming is counted. When a run misses the goal the runs' session logs are kept
 * (their folder is printed) to replay it in the Sessions view.
 *
 * Per run, from its session log, how evenly motion-capture frames and robot states reached the
 * console (receive gaps p99 and max) and what the longest gap was (session/stream-gaps.ts: lost,
 * delivered late, or a source that paused), so a staleness stop can be put down to its side.
 *
 *   npm run bench -- dry-runs [--runs N] [--preset NAME] [--scene FILE]
 *
 * Without --preset the runs use the console's default settings.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { monotonicSeconds } from '../src-main/common/clock';
import { parseArgs } from 'node:util';
import type { ConsoleEvent } from '#contract/console-api';
import type { LabInputWrite } from '../src-main/virtual-lab/lab-thread/lab-thread';
import { CommandCode, INPUT_NAMES } from '../src-main/robot/registers';
import { plannerPresetNameSchema } from '#contract/planner-settings';
import { meanCiText, wilsonInterval } from '../src-main/experiments/stats';
import { isIndexedMcap } from '../src-main/session/finalize';
import { SessionLog } from '../src-main/session/reader';
import { sessionFileNames } from '../src-main/session/sessions-dir';
import { streamGapsOf, type RunStreamGaps, type StreamGaps } from '../src-main/session/stream-gaps';
import { betweenRuns, consoleOnVirtualLab, dryRunToEnd } from './console-dry-runs';
import { meanCi95, printTable, writeResult } from './report';

interface DryRun {
  outcome: string;
  reason: string | null;
  seconds: number;
  actions: number;
  planning: number[];
  /** Control sequences each step's plan predicted (its work). */
  sequences: number[];
  /** The workers' CPU time for each step's predictions, s. */
  workerCpu: number[];
  /** MuJoCo solver iterations of each step's predictions (summed over their steps). */
  solverIterations: number[];
  /** Workers the run planned on. */
  workers: number;
  replanned: number;
  /** Whether the first step sent was the plan made before arming. */
  firstBeforeArming: boolean | null;
  /** From the supervisor arming (its decision) to the first motion command on the wire, s. */
  armToPush: number | null;
  /** From the operator's start (the run.start command) to the first motion command on the wire, s. */
  startToPush: number | null;
  /**
   * When the supervisor armed, s (common/clock): the start plus the decision's run time (the
   * run's clock starts just after the start is sent, so this is at most a few ms early).
   */
  armedAt: number | null;
  /** When the operator started the run, s (common/clock). */
  startedAt: number;
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      runs: { type: 'string', default: '20' },
      preset: { type: 'string' },
      scene: { type: 'string', default: 'isrr-obstacle.json' },
    },
  });
  const runs = Number(values.runs);
  const preset = values.preset;
  const sceneFile = values.scene;
  const { core, lab, close, sessionsDir } = consoleOnVirtualLab(sceneFile, 'parapush-dry-runs-');
  if (preset) {
    const r = await core.handle({ type: 'settings.preset', preset: plannerPresetNameSchema.parse(preset) });
    if (!r.ok) throw new Error(r.error);
  }
  const done: DryRun[] = [];
  let gaps: RunStreamGaps[] | undefined;
  let current: DryRun | null = null;
  core.subscribe((e: ConsoleEvent) => {
    if (!current) return;
    // When the supervisor armed, on its decision's clock (run time): the event itself can reach
    // the console after the first command has reached the controller.
    if (e.type === 'supervisor' && e.reason.startsWith('Armed') && current.armedAt === null)
      current.armedAt = current.startedAt + e.time;
    if (e.type === 'planner-step') {
      current.planning.push(e.step.timings.planning);
      current.sequences.push(e.step.timings.sequences ?? Number.NaN);
      current.workerCpu.push(e.step.timings.workerCpu ?? Number.NaN);
      current.solverIterations.push(e.step.timings.solverIterations ?? Number.NaN);
      current.workers = e.step.timings.workers;
      if (e.step.step === 0) current.firstBeforeArming = e.step.beforeArming ?? false;
      if (e.step.replan?.replanned) current.replanned++;
    }
  });
  try {
    for (let n = 0; n < runs; n++) {
      const run: DryRun = {
        outcome: '',
        reason: null,
        seconds: 0,
        actions: 0,
        planning: [],
        sequences: [],
        workerCpu: [],
        solverIterations: [],
        workers: 0,
        replanned: 0,
        firstBeforeArming: null,
        armToPush: null,
        startToPush: null,
        armedAt: null,
        startedAt: monotonicSeconds(),
      };
      current = run;
      const t0 = run.startedAt;
      const onInput = (w: LabInputWrite): void => {
        const at = (name: string): unknown => w.values[w.names.indexOf(name)];
        const moving =
          at(INPUT_NAMES.command) === CommandCode.SPEED &&
          (at(INPUT_NAMES.vx) !== 0 || at(INPUT_NAMES.vy) !== 0);
        if (!moving || run.startToPush !== null) return;
        run.startToPush = w.receivedAt - run.startedAt;
        if (run.armedAt !== null) run.armToPush = w.receivedAt - run.armedAt;
      };
      // What the virtual controller decodes, relayed from the lab's thread, from the run's start on.
      let offInput: (() => void) | undefined;
      let watching = false;
      const ended = await dryRunToEnd(core, () => {
        if (watching) return;
        watching = true;
        offInput = lab.virtualLab.thread()?.onInput(onInput);
      });
      current.outcome = ended.outcome;
      current.reason = ended.reason;
      offInput?.();
      current.seconds = monotonicSeconds() - t0;
      current.actions = current.planning.length;
      done.push(current);
      process.stderr.write(
        `dry run ${n + 1}/${runs}: ${current.outcome} (${current.reason}) in ${current.seconds.toFixed(0)} s\n`,
      );
      current = null;
      await betweenRuns();
    }
  } finally {
    await close();
    if (done.length === runs) gaps = await logGaps(sessionsDir);
    // The session logs are what explains a run that missed the goal: kept then, else removed.
    if (done.length === runs && done.every((r) => r.outcome === 'finished'))
      rmSync(sessionsDir, { recursive: true, force: true });
    else process.stderr.write(`session logs of these runs (in file-name order): ${sessionsDir}\n`);
  }
  const finished = done.filter((r) => r.outcome === 'finished');
  const interval = wilsonInterval(finished.length, done.length);
  const steps = done.flatMap((r) => r.planning);
  const reasons = new Map<string, number>();
  for (const r of done) {
    const key = `${r.outcome}: ${(r.reason ?? '').replace(/\d+ ms/, 'N ms')}`;
    reasons.set(key, (reasons.get(key) ?? 0) + 1);
  }
  const time = meanCi95(finished.map((r) => r.seconds));
  const meanOf = (values: (number | null | undefined)[]): string => {
    const s = values.filter((v): v is number => v !== null && v !== undefined);
    return s.length === 0 ? '-' : meanCiText(meanCi95(s), 2, '+-');
  };
  // Per predicted sequence of step i of run r: planning time (ms), the workers' CPU time (ms),
  // solver iterations; and the share of the workers' planning time they spent on the CPU.
  const msPerSequence = (r: DryRun, i: number): number => (1000 * r.planning[i]!) / r.sequences[i]!;
  const cpuMsPerSequence = (r: DryRun, i: number): number => (1000 * r.workerCpu[i]!) / r.sequences[i]!;
  const iterationsPerSequence = (r: DryRun, i: number): number => r.solverIterations[i]! / r.sequences[i]!;
  const workersBusy = (r: DryRun, i: number): number => r.workerCpu[i]! / (r.planning[i]! * r.workers);
  const first = (rs: DryRun[], f: (r: DryRun, i: number) => number): string =>
    meanOf(rs.filter((r) => r.planning.length > 0).map((r) => f(r, 0)));
  const later = (rs: DryRun[], f: (r: DryRun, i: number) => number): string =>
    meanOf(rs.flatMap((r) => r.planning.slice(1).map((_, i) => f(r, i + 1))));
  // How soon a run pushes: the console's first run (its workers start) against the later ones
  // (warm); the first step's work and time per sequence beside the later steps'.
  const soon = (label: string, rs: DryRun[]) => ({
    runs: label,
    n: rs.length,
    'start to first push s': meanOf(rs.map((r) => r.startToPush)),
    'arming to first push s': meanOf(rs.map((r) => r.armToPush)),
    'first step planned before arming': `${rs.filter((r) => r.firstBeforeArming).length} of ${rs.length}`,
    'first step plans s': meanOf(rs.map((r) => r.planning[0])),
    'later steps plan s': meanOf(rs.flatMap((r) => r.planning.slice(1))),
    'first step sequences': meanOf(rs.map((r) => r.sequences[0])),
    'later steps sequences': meanOf(rs.flatMap((r) => r.sequences.slice(1))),
    'first step ms/sequence': first(rs, msPerSequence),
    'later steps ms/sequence': later(rs, msPerSequence),
    'first step worker CPU ms/sequence': first(rs, cpuMsPerSequence),
    'later steps worker CPU ms/sequence': later(rs, cpuMsPerSequence),
    'first step solver iterations/sequence': first(rs, iterationsPerSequence),
    'later steps solver iterations/sequence': later(rs, iterationsPerSequence),
    'first step workers busy': first(rs, workersBusy),
    'later steps workers busy': later(rs, workersBusy),
  });
  const firstPush = [soon('run 1', done.slice(0, 1)), soon('runs 2+', done.slice(1))];
  const planning = meanCi95(steps);
  const summary = {
    scene: sceneFile,
    settings: preset ?? 'console default',
    runs: done.length,
    'goal reached': `${finished.length} (${(100 * interval.low).toFixed(0)}-${(100 * interval.high).toFixed(0)}%)`,
    'time to goal s': finished.length > 0 ? meanCiText(time, 1, '+-') : '-',
    'planning per step s': meanCiText(planning, 2, '+-'),
    'steps planned twice': `${steps.length > 0 ? ((100 * done.reduce((a, r) => a + r.replanned, 0)) / steps.length).toFixed(0) : 0}%`,
  };
  printTable('Console dry runs on the virtual lab', [summary]);
  printTable('How soon a run pushes: the first run of the console, and the later runs', firstPush);
  const gapRows = (gaps ?? []).map((g, i) => ({
    run: i + 1,
    ...gapColumns('frames', g.mocap),
    ...gapColumns('states', g.robot),
  }));
  printTable(
    'How evenly motion-capture frames and robot states arrived, per run (from its session log)',
    gapRows,
  );
  printTable(
    'How they ended',
    [...reasons].map(([outcome, count]) => ({ outcome, runs: count })),
  );
  writeResult('dry-runs', {
    summary,
    firstPush,
    outcomes: Object.fromEntries(reasons),
    gaps: gapRows,
    runs: done.map(({ armedAt: _, startedAt: __, ...r }) => r),
  });
}

/** Each run's stream gaps, from the session logs of `dir` (named by start time: run order). */
export async function logGaps(dir: string): Promise<RunStreamGaps[]> {
  const out: RunStreamGaps[] = [];
  for (const name of (await sessionFileNames(dir)).sort()) out.push(await logFileGaps(path.join(dir, name)));
  return out;
}

/** One run's stream gaps, from its session log (once the console has finished writing it). */
export async function logFileGaps(file: string): Promise<RunStreamGaps> {
  // The console finishes a run's log (finalize.ts) after its link lets go: wait for that.
  for (let tries = 0; tries < 150 && !(await isIndexedMcap(file)); tries++)
    await new Promise((r) => setTimeout(r, 200));
  let log: SessionLog;
  try {
    log = await SessionLog.open(file);
  } catch (err) {
    // A log the console left unfinished: its row says so; the bench's other figures stand.
    process.stderr.write(`stream gaps of ${path.basename(file)}: ${(err as Error).message}\n`);
    return { mocap: null, robot: null };
  }
  try {
    return await streamGapsOf(log);
  } finally {
    await log.close();
  }
}

function gapColumns(stream: string, g: StreamGaps | null): Record<string, string> {
  const ms = (s: number): string => (s * 1000).toFixed(1);
  return {
    [`${stream} p99 ms`]: g ? ms(g.p99) : '-',
    [`${stream} max ms`]: g ? ms(g.max) : '-',
    [`longest ${stream} gap`]: g?.longest ? g.longest.cause : '-',
  };
}
