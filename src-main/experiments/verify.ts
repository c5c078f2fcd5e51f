/**
 * `parapush experiment verify`: reruns a few stored runs of an experiment folder on the current
 * code and checks that every observed state, executed control and outcome repeats bit for bit.
 * Planning and task times are wall clock and never repeat; everything else in a run is a function
 * of the code, the input files (task, scene, learned model) and the seeds, so any difference means
 * the code or an input moved the results. Inputs whose content hashes differ from those in
 * experiment.json are named first, so a scene edited in place is not mistaken for a code change.
 */
import path from 'node:path';
import type { Scene } from '#contract/scene';
import type { Task } from '../planning/task-file';
import { checkInputs, currentInputs, type InputCheck, type InputSources } from './provenance';
import { readRunRecords, type RunRecord } from './run-record';
import { configOf, readExperimentFile, runScenes } from './runner';

export interface VerifyOptions {
  dir: string;
  /** The experiment's task and scene as the current code loads them. */
  taskDef: Task;
  scene: Scene;
  /** Scene indices to rerun for every model (default: the first scene). */
  scenes?: readonly number[];
  /** Model specs to rerun (default: every model of the experiment). */
  models?: readonly string[];
  /** Compare only the first this many actions of each run (default: whole runs, outcome included). */
  maxActions?: number;
  /** A changed task for every rerun; a test injects a changed cost weight here. */
  adjustTask?(task: Task): Task;
  /** The input files this verify reads, to compare with those the experiment recorded. */
  inputs?: Omit<InputSources, 'models'>;
  /** Told which inputs changed before any run starts (the runs take minutes). */
  onInputs?(check: InputCheck): void;
  /** Told when a run starts and when it repeated. */
  onProgress?(note: string): void;
  signal?: AbortSignal;
}

/** The first place where a rerun differs from its record. */
export interface Difference {
  scene: number;
  model: string;
  /** Action index: states[step] is the state after `step` actions, controls[step] the next action. */
  step: number | null;
  field: string;
  recorded: unknown;
  now: unknown;
}

/** Whether the runs repeat, and what the input check found (null: no inputs given to check). */
export type VerifyResult = { inputs: InputCheck | null } & (
  { ok: true; runs: number } | { ok: false; runs: number; difference: Difference }
);

export class VerifyError extends Error {}

export function describeDifference(d: Difference): string {
  const at = d.step === null ? '' : ` step ${d.step}`;
  return `scene ${d.scene}, ${d.model}${at}: ${d.field} recorded ${JSON.stringify(d.recorded)}, now ${JSON.stringify(d.now)}`;
}

export async function verifyExperiment(o: VerifyOptions): Promise<VerifyResult> {
  const file = readExperimentFile(o.dir);
  const config = configOf(file);
  if (config.task !== o.taskDef.name)
    throw new VerifyError(`${o.dir} ran task ${config.task}, not ${o.taskDef.name}`);
  const models = o.models ?? config.models;
  for (const m of models)
    if (!config.models.includes(m))
      throw new VerifyError(`${o.dir} has no model ${m} (${config.models.join(', ')})`);
  const scenes = o.scenes ?? [0];
  const stored = new Map<string, RunRecord>();
  for (const r of readRunRecords(o.dir)) stored.set(`${r.model}#${r.scene}`, r);
  for (const s of scenes)
    for (const m of models)
      if (!stored.has(`${m}#${s}`))
        throw new VerifyError(`${path.join(o.dir, 'runs')} has no run of ${m} on scene ${s}`);
  // The pool size the runs were recorded with: `auto` and adaptive models resolve by it.
  const workers = stored.get(`${models[0]}#${scenes[0]}`)!.workers;
  // Every model's inputs, not only the rerun ones': a retrained model is news either way.
  const inputs = o.inputs
    ? checkInputs(file.inputs, currentInputs({ ...o.inputs, models: config.models }))
    : null;
  if (inputs) o.onInputs?.(inputs);

  let runs = 0;
  let difference: Difference | null = null;
  const stop = new AbortController();
  const onAbort = (): void => stop.abort();
  o.signal?.addEventListener('abort', onAbort);
  try {
    await runScenes({
      ...config,
      taskDef: o.taskDef,
      scene: o.scene,
      scenes,
      only: models,
      workers,
      ...(o.maxActions !== undefined ? { maxActions: o.maxActions } : {}),
      ...(o.adjustTask ? { adjustTask: o.adjustTask } : {}),
      signal: stop.signal,
      skip: (model, scene) => {
        o.onProgress?.(`${model} scene ${scene}: rerunning`);
        return false;
      },
      onRecord: (now) => {
        runs++;
        const recorded = stored.get(`${now.model}#${now.scene}`)!;
        difference = compareRuns(recorded, now, o.maxActions);
        if (difference) stop.abort();
        else
          o.onProgress?.(
            `${now.model} scene ${now.scene}: repeats (${now.summary.actions} actions, ${now.summary.outcome})`,
          );
      },
    });
  } finally {
    o.signal?.removeEventListener('abort', onAbort);
  }
  if (o.signal?.aborted && !difference) throw new VerifyError('interrupted');
  return difference ? { ok: false, runs, difference, inputs } : { ok: true, runs, inputs };
}

/**
 * The first difference between a stored run and its rerun, in the order things happened: the
 * environment, then state by state and control by control, then the outcome. With maxActions the
 * rerun stopped after that many actions, so only that prefix (and the outcome, when the stored
 * run ended within it) must repeat; likewise a run that met the task's time limit.
 */
export function compareRuns(recorded: RunRecord, rerun: RunRecord, maxActions?: number): Difference | null {
  // Through JSON, as the record was stored: -0 and 0 are one value there.
  const now = JSON.parse(JSON.stringify(rerun)) as RunRecord;
  const at = (step: number | null, field: string, a: unknown, b: unknown): Difference => ({
    scene: recorded.scene,
    model: recorded.model,
    step,
    field,
    recorded: a,
    now: b,
  });
  if (JSON.stringify(recorded.object) !== JSON.stringify(now.object))
    return at(null, 'object', recorded.object, now.object);
  if (recorded.planner !== now.planner) return at(null, 'planner', recorded.planner, now.planner);
  const r = recorded.summary;
  const n = now.summary;
  // A task's time limit counts planning wall time, so where a run met it depends on the
  // machine's speed and load: such runs must repeat only as far as both went.
  const timed = r.outcome === 'time-limit' || n.outcome === 'time-limit';
  const limit = Math.min(maxActions ?? Infinity, timed ? Math.min(r.actions, n.actions) : Infinity);
  const truncated = r.actions > limit || (timed && n.actions !== r.actions);
  const actions = Math.min(r.actions, limit);
  for (let step = 0; step <= actions; step++) {
    if (step < actions && step >= n.actions) return at(step, 'outcome', r.outcome, n.outcome);
    const d =
      compareVectors(step, 'state', r.states[step], n.states[step]) ??
      (step < actions ? compareVectors(step, 'control', r.controls[step], n.controls[step]) : null);
    if (d) return at(d.step, d.field, d.recorded, d.now);
  }
  if (truncated) return null;
  for (const field of ['outcome', 'failure', 'detail', 'actions'] as const)
    if (r[field] !== n[field]) return at(null, field, r[field], n[field]);
  if (n.states.length !== r.states.length) return at(null, 'states.length', r.states.length, n.states.length);
  return null;
}

function compareVectors(
  step: number,
  name: string,
  a: readonly number[] | undefined,
  b: readonly number[] | undefined,
): Pick<Difference, 'step' | 'field' | 'recorded' | 'now'> | null {
  if (a === undefined || b === undefined)
    return a === b ? null : { step, field: name, recorded: a ?? 'none', now: b ?? 'none' };
  const length = Math.max(a.length, b.length);
  for (let i = 0; i < length; i++)
    if (a[i] !== b[i]) return { step, field: `${name}[${i}]`, recorded: a[i] ?? 'none', now: b[i] ?? 'none' };
  return null;
}
