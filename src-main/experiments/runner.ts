/**
 * The experiment runner: for every sampled scene of this shard and every prediction model, one
 * MPC run in the simulated execution world, stored as its own file (resumable: finished runs are
 * skipped; shards of one experiment write disjoint files and merge by copying).
 *
 * Every model sees the same environment (start state and, for WAFR tasks, the drawn object), the
 * same execution-noise seed and the same planner seed for a scene, so models are compared on
 * paired runs.
 */
import type { PredictionError } from '../planning/prediction-error';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { type PlannerStep } from '#contract/planner-events';
import os from 'node:os';
import path from 'node:path';
import { monotonicSeconds } from '../common/clock';
import { z } from 'zod';
import type { Scene } from '#contract/scene';
import { FinePool } from '../parareal/fine-pool';
import { ExecutionWorld } from '../planning/execution-world';
import { deriveSeed } from '../common/rng';
import { noiseSchema, type Task } from '../planning/task-file';
import { taskForRun, TaskOverrideError } from '../planning/task-for-run';
import { runTaskOn } from '../planning/task-run';
import { sampleScene } from './initial-states';
import { hasRunRecord, modelDir, writeRunRecord, type RunRecord } from './run-record';
import { recordedRun } from '../run/recorded-run';
import type { RunSummary } from '#contract/planner-events';
import { parseRunSpec } from './run-spec';
import { commitPattern, currentCommit, inputFileSchema, type InputFile } from './provenance';
import { inShard, type Shard } from '../common/shard';
import { readStoredJson } from '../common/stored-json';

/** The readings of b|u| a task file's action-proportional noise can name (task-file.ts, docs/noise.md). */
export const noiseReadingSchema = noiseSchema.options[1].shape.reading.unwrap();
export type NoiseReading = z.infer<typeof noiseReadingSchema>;

export const experimentConfigSchema = z
  .object({
    task: z.string(),
    models: z.array(z.string()).min(1),
    scenes: z.number().int().min(1),
    seed: z.number().int().min(0),
    /** Present only for asynchronous MPC, so synchronous experiments keep their stored identity. */
    loopMode: z.literal('asynchronous').optional(),
    /**
     * The action-proportional noise slope b replacing the task file's (noise-slope.ts); present
     * only when overridden, so other experiments keep their stored identity.
     */
    noiseSlope: z.number().min(0).optional(),
    /**
     * The reading of b|u| replacing the task file's (docs/noise.md's sensitivity to the reading);
     * present only when overridden.
     */
    noiseReading: noiseReadingSchema.optional(),
  })
  .strict();
export type ExperimentConfig = z.infer<typeof experimentConfigSchema>;

export interface ExperimentOptions extends ExperimentConfig {
  taskDef: Task;
  scene: Scene;
  outDir: string;
  shard: Shard;
  workers: number;
  /** The input files' hashes for experiment.json (provenance.ts recordInputs); absent: not recorded. */
  inputs?: InputFile[];
  /**
   * Where each run's session log goes (run/recorded-run.ts), to play back in the console or
   * Foxglove; none is written without it.
   */
  sessionsDir?: string;
  /** Called after each run of the shard: its record, or null when a stored result was kept. */
  onRun?(run: { model: string; scene: number; record: RunRecord | null }): void;
  signal?: AbortSignal;
}

/** Scene indices this shard owns: i, i + n, i + 2n, ... */
export function shardScenes(scenes: number, shard: Shard): number[] {
  return Array.from({ length: scenes }, (_, s) => s).filter((s) => inShard(s, shard));
}

/** An experiment folder's experiment.json: its identity, and the commit and command that made it. */
export const experimentFileSchema = experimentConfigSchema
  .extend({
    /** The commit whose code ran every run of the folder (-dirty: with uncommitted changes). */
    commit: z.string().regex(commitPattern),
    /** The command that reruns the whole experiment into the folder. */
    command: z.string(),
    /** Content hashes of the task, scene and model files (absent: recorded before they were). */
    inputs: z.array(inputFileSchema).optional(),
  })
  .strict();
export type ExperimentFile = z.infer<typeof experimentFileSchema>;

/**
 * experiment.json as written before the loop mode had the task file's and the settings' name
 * (loopMode): committed experiments keep their files as they ran, so the old key is read too.
 */
function withLoopModeName(json: unknown): unknown {
  if (typeof json !== 'object' || json === null || !('mode' in json)) return json;
  const { mode, ...rest } = json as Record<string, unknown>;
  return { ...rest, loopMode: mode };
}

export function readExperimentFile(dir: string): ExperimentFile {
  const file = path.join(dir, 'experiment.json');
  return readStoredJson(file, z.preprocess(withLoopModeName, experimentFileSchema), {
    what: 'experiment file',
  });
}

/** The command-line options that give an experiment its identity (the sweep's command takes them too). */
export function experimentArgs(config: ExperimentConfig): string[] {
  return [
    `--task ${config.task}`,
    `--models ${config.models.join(',')}`,
    `--scenes ${config.scenes}`,
    `--seed ${config.seed}`,
    ...(config.loopMode === 'asynchronous' ? ['--async'] : []),
    ...(config.noiseSlope !== undefined ? [`--noise-slope ${config.noiseSlope}`] : []),
    ...(config.noiseReading !== undefined ? [`--noise-reading ${config.noiseReading}`] : []),
  ];
}

/** The command line that runs this experiment (into outDir) from scratch. */
export function experimentCommand(config: ExperimentConfig, outDir: string): string {
  return ['npx parapush experiment', ...experimentArgs(config), `--out ${outDir}`].join(' ');
}

/**
 * The experiment's identity, kept in the output folder so a resumed run or a shard cannot mix
 * configurations, nor runs of different code: a folder takes runs of its own commit only.
 */
export function claimOutDir(
  outDir: string,
  config: ExperimentConfig,
  commit: string = currentCommit(),
  inputs?: InputFile[],
): void {
  mkdirSync(outDir, { recursive: true });
  const file = path.join(outDir, 'experiment.json');
  if (existsSync(file)) {
    const existing = readExperimentFile(outDir);
    if (JSON.stringify(configOf(existing)) !== JSON.stringify(configOf(config))) {
      throw new Error(
        `${outDir} holds another experiment (${JSON.stringify(configOf(existing))}); use a new --out or the same settings`,
      );
    }
    if (existing.commit !== commit)
      throw new Error(
        `${outDir} holds another experiment: its runs are from commit ${existing.commit}, this code is ${commit}; use a new --out`,
      );
    // Runs of other inputs (a scene file edited in place) are another experiment too.
    const differs = existing.inputs && inputs && JSON.stringify(existing.inputs) !== JSON.stringify(inputs);
    if (differs)
      throw new Error(
        `${outDir} holds another experiment: its runs read other input files (${existing.inputs!.map((i) => i.file).join(', ')}); use a new --out`,
      );
    return;
  }
  const contents: ExperimentFile = {
    ...configOf(config),
    commit,
    command: experimentCommand(config, path.relative(process.cwd(), outDir) || '.'),
    ...(inputs ? { inputs } : {}),
  };
  writeFileSync(file, `${JSON.stringify(contents, null, 2)}\n`);
}

export function sceneSeed(seed: number, scene: number): number {
  return deriveSeed(seed, `scene-${scene}`);
}

/** Runs (or skips, when already stored) every run of the shard; returns how many ran and were skipped. */
export async function runExperiment(o: ExperimentOptions): Promise<{ ran: number; skipped: number }> {
  // A slope the task cannot take fails before the folder is claimed.
  experimentTask(o.taskDef, o);
  claimOutDir(o.outDir, configOf(o), currentCommit(), o.inputs);
  let ran = 0;
  let skipped = 0;
  await runScenes({
    ...o,
    scenes: shardScenes(o.scenes, o.shard),
    skip: (spec, s) => {
      if (!hasRunRecord(o.outDir, spec, s)) return false;
      skipped++;
      o.onRun?.({ model: spec, scene: s, record: null });
      return true;
    },
    onRecord: (record) => {
      writeRunRecord(o.outDir, record);
      ran++;
      o.onRun?.({ model: record.model, scene: record.scene, record });
    },
  });
  return { ran, skipped };
}

export const configOf = (o: ExperimentConfig): ExperimentConfig => ({
  task: o.task,
  models: o.models,
  scenes: o.scenes,
  seed: o.seed,
  ...(o.loopMode ? { loopMode: o.loopMode } : {}),
  ...(o.noiseSlope !== undefined ? { noiseSlope: o.noiseSlope } : {}),
  ...(o.noiseReading !== undefined ? { noiseReading: o.noiseReading } : {}),
});

export interface SceneRunsOptions extends Omit<ExperimentConfig, 'scenes'> {
  taskDef: Task;
  scene: Scene;
  /** Scene indices to run, in order. */
  scenes: readonly number[];
  /** Only these model specs (default: all of the experiment's, in its order). */
  only?: readonly string[];
  workers: number;
  /** Where session logs go, and the folder their paths in the records are relative to. */
  sessionsDir?: string;
  outDir?: string;
  /**
   * Ends every run after this many executed actions (a verification of a prefix); such a run
   * returns with outcome 'aborted' unless it ended on its own first.
   */
  maxActions?: number;
  /** The task a spec runs, after the spec's own changes (a test injects a changed cost weight here). */
  adjustTask?(task: Task): Task;
  /** True keeps the stored result of this run instead of running it. */
  skip?(spec: string, scene: number): boolean;
  onRecord(record: RunRecord): void;
  signal?: AbortSignal;
}

/**
 * The task file's task as the experiment runs it: its loop mode, noise slope and noise reading,
 * when the experiment sets them, replace the file's; the execution world and every planner read
 * this one.
 */
export function experimentTask(
  task: Task,
  config: Pick<ExperimentConfig, 'loopMode' | 'noiseSlope' | 'noiseReading'>,
): Task {
  const t = taskForRun(task, { loopMode: config.loopMode, noiseSlope: config.noiseSlope });
  return config.noiseReading === undefined ? t : withNoiseReading(t, config.noiseReading);
}

/**
 * The task with its action-proportional noise read another way. Only experiments change the
 * reading (the console runs the task file's), so this override lives here, not in taskForRun.
 */
function withNoiseReading(task: Task, reading: NoiseReading): Task {
  const noise = task.execution.noise;
  if (noise.kind !== 'action-proportional')
    throw new TaskOverrideError(
      `task ${task.name} has ${noise.kind} execution noise, not action-proportional: a noise reading applies to the WAFR tasks only`,
    );
  return { ...task, execution: { ...task.execution, noise: { ...noise, reading } } };
}

/**
 * Every run of the given scenes, the models of a scene in the experiment's order and in one
 * execution world per environment, exactly as the experiment ran them (a rerun repeats them).
 */
export async function runScenes(o: SceneRunsOptions): Promise<void> {
  const taskDef = experimentTask(o.taskDef, o);
  const adjust = o.adjustTask ?? ((t: Task) => t);
  const runs = o.models
    .filter((spec) => !o.only || o.only.includes(spec))
    .map((spec) => {
      const parsed = parseRunSpec(spec);
      return { spec, ...parsed, task: adjust(taskForRun(taskDef, { planner: parsed.planner ?? undefined })) };
    });
  const pool = new FinePool({ workers: o.workers });
  let world: ExecutionWorld | undefined;
  let worldScene: Scene | undefined;
  try {
    for (const s of o.scenes) {
      const seed = sceneSeed(o.seed, s);
      const { scene, x0 } = sampleScene(o.scene, o.taskDef.sampling, deriveSeed(seed, 'start'));
      const sampledObject = scene === o.scene ? undefined : goalObject(scene);
      for (const { spec, model, coarse, task } of runs) {
        if (o.signal?.aborted) return;
        if (o.skip?.(spec, s)) continue;
        const execSeed = deriveSeed(seed, 'execution');
        // One world per environment: a drawn object is another MuJoCo model.
        if (world && worldScene === scene) world.reset(x0, execSeed);
        else {
          world?.dispose();
          world = undefined;
          world = await ExecutionWorld.create(scene, taskDef.execution.noise, execSeed, x0);
          worldScene = scene;
        }
        const t0 = monotonicSeconds();
        const loadAtStart = os.loadavg()[0]!;
        const plant = world;
        const stop = new AbortController();
        const onAbort = (): void => stop.abort();
        o.signal?.addEventListener('abort', onAbort);
        const limit = o.maxActions;
        const run = (
          onStep?: (step: PlannerStep) => void,
          onPredictionError?: (e: PredictionError) => void,
        ): Promise<RunSummary> =>
          runTaskOn({
            task,
            scene,
            pool,
            model,
            coarse,
            seed,
            plant,
            onStep: (step) => {
              onStep?.(step);
              // Aborted while its last action is being planned, the run still executes it.
              if (limit !== undefined && step.step + 1 >= limit) stop.abort();
            },
            ...(onPredictionError ? { onPredictionError } : {}),
            signal: stop.signal,
          });
        let summary: RunSummary;
        let session: string | undefined;
        try {
          if (o.sessionsDir) {
            const recorded = await recordedRun({
              dir: o.sessionsDir,
              label: `${modelDir(spec)}_scene-${s}`,
              scene,
              task,
              model,
              coarse: coarse ?? 'analytical',
              workers: pool.size,
              run,
            });
            summary = recorded.summary;
            session = path.relative(o.outDir ?? o.sessionsDir, recorded.file);
          } else summary = await run();
        } finally {
          o.signal?.removeEventListener('abort', onAbort);
        }
        if (o.signal?.aborted) return;
        o.onRecord({
          task: o.task,
          model: spec,
          planner: task.planner.kind,
          scene: s,
          seed: o.seed,
          workers: pool.size,
          controlDuration: task.planner.controlDuration,
          wallTime: monotonicSeconds() - t0,
          loadAtStart: Number(loadAtStart.toFixed(2)),
          ...(sampledObject ? { object: sampledObject } : {}),
          ...(session ? { session } : {}),
          summary,
        });
      }
    }
  } finally {
    world?.dispose();
    await pool.close();
  }
}

function goalObject(scene: Scene): NonNullable<RunRecord['object']> {
  const s = scene.sliders.find((sl) => sl.id === scene.goal.slider)!;
  return { shape: s.shape, mass: s.mass, friction: s.friction };
}
