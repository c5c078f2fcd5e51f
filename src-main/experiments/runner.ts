/**
 * The experiment runner: for every sampled scene of this shard and every prediction model, one
 * MPC run in the simulated execution world, stored as its own file (resumable: finished runs are
 * skipped; shards of one experiment write disjoint files and merge by copying).
 *
 * Every model sees the same environment (start state and, for WAFR tasks, the drawn object), the
 * same execution-noise seed and the same planner seed for a scene, so models are compared on
 * paired runs.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import type { Scene } from '../contract/scene';
import { FinePool } from '../parareal/fine-pool';
import { ExecutionWorld } from '../planning/execution-world';
import { deriveSeed } from '../common/rng';
import type { Task } from '../planning/task-file';
import { runTaskOn } from '../planning/task-run';
import { sampleScene } from './initial-states';
import { hasRunRecord, modelDir, writeRunRecord, type RunRecord } from './run-record';
import { recordedRun } from '../run/recorded-run';
import type { PlannerStep } from '../contract/console-api';
import type { RunSummary } from '../contract/planner-events';
import { parseRunSpec, taskForSpec } from './run-spec';

export interface Shard {
  index: number;
  count: number;
}

export const experimentConfigSchema = z
  .object({
    task: z.string(),
    models: z.array(z.string()).min(1),
    scenes: z.number().int().min(1),
    seed: z.number().int().min(0),
    /** Present only for asynchronous MPC, so synchronous experiments keep their stored identity. */
    mode: z.literal('asynchronous').optional(),
  })
  .strict();
export type ExperimentConfig = z.infer<typeof experimentConfigSchema>;

export interface ExperimentOptions extends ExperimentConfig {
  taskDef: Task;
  scene: Scene;
  outDir: string;
  shard: Shard;
  workers: number;
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
  const out: number[] = [];
  for (let s = shard.index; s < scenes; s += shard.count) out.push(s);
  return out;
}

/** The experiment's identity, kept in the output folder so a resumed run or a shard cannot mix configurations. */
export function claimOutDir(outDir: string, config: ExperimentConfig): void {
  mkdirSync(outDir, { recursive: true });
  const file = path.join(outDir, 'experiment.json');
  if (existsSync(file)) {
    const existing = experimentConfigSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
    if (JSON.stringify(existing) !== JSON.stringify(config)) {
      throw new Error(
        `${outDir} holds another experiment (${JSON.stringify(existing)}); use a new --out or the same settings`,
      );
    }
    return;
  }
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
}

export function sceneSeed(seed: number, scene: number): number {
  return deriveSeed(seed, `scene-${scene}`);
}

/** Runs (or skips, when already stored) every run of the shard; returns how many ran and were skipped. */
export async function runExperiment(o: ExperimentOptions): Promise<{ ran: number; skipped: number }> {
  const config: ExperimentConfig = {
    task: o.task,
    models: o.models,
    scenes: o.scenes,
    seed: o.seed,
    ...(o.mode ? { mode: o.mode } : {}),
  };
  claimOutDir(o.outDir, config);
  const taskDef = o.mode ? { ...o.taskDef, planner: { ...o.taskDef.planner, mode: o.mode } } : o.taskDef;
  const runs = o.models.map((spec) => {
    const parsed = parseRunSpec(spec);
    return { spec, ...parsed, task: taskForSpec(taskDef, parsed) };
  });
  const scenes = shardScenes(o.scenes, o.shard);
  let ran = 0;
  let skipped = 0;
  const pool = new FinePool({ workers: o.workers });
  let world: ExecutionWorld | undefined;
  let worldScene: Scene | undefined;
  try {
    for (const s of scenes) {
      const seed = sceneSeed(o.seed, s);
      const { scene, x0 } = sampleScene(o.scene, o.taskDef.sampling, deriveSeed(seed, 'start'));
      const sampledObject = scene === o.scene ? undefined : goalObject(scene);
      for (const { spec, model, coarse, task } of runs) {
        if (o.signal?.aborted) return { ran, skipped };
        if (hasRunRecord(o.outDir, spec, s)) {
          skipped++;
          o.onRun?.({ model: spec, scene: s, record: null });
          continue;
        }
        const execSeed = deriveSeed(seed, 'execution');
        // One world per environment: a drawn object is another MuJoCo model.
        if (world && worldScene === scene) world.reset(x0, execSeed);
        else {
          world?.dispose();
          world = undefined;
          world = await ExecutionWorld.create(scene, o.taskDef.execution.noise, execSeed, x0);
          worldScene = scene;
        }
        const t0 = performance.now();
        const plant = world;
        const run = (onStep?: (step: PlannerStep) => void): Promise<RunSummary> =>
          runTaskOn({
            task,
            scene,
            pool,
            model,
            coarse,
            seed,
            plant,
            ...(onStep ? { onStep } : {}),
            ...(o.signal ? { signal: o.signal } : {}),
          });
        let summary: RunSummary;
        let session: string | undefined;
        if (o.sessionsDir) {
          const recorded = await recordedRun({
            dir: o.sessionsDir,
            label: `${modelDir(spec)}_scene-${s}`,
            scene,
            task,
            model,
            coarse: coarse ?? 'analytical',
            run,
          });
          summary = recorded.summary;
          session = path.relative(o.outDir, recorded.file);
        } else summary = await run();
        if (summary.outcome === 'aborted') return { ran, skipped };
        const record: RunRecord = {
          task: o.task,
          model: spec,
          planner: task.planner.kind,
          scene: s,
          seed: o.seed,
          workers: pool.size,
          controlDuration: task.planner.controlDuration,
          wallTime: (performance.now() - t0) / 1000,
          ...(sampledObject ? { object: sampledObject } : {}),
          ...(session ? { session } : {}),
          summary,
        };
        writeRunRecord(o.outDir, record);
        ran++;
        o.onRun?.({ model: spec, scene: s, record });
      }
    }
  } finally {
    world?.dispose();
    await pool.close();
  }
  return { ran, skipped };
}

function goalObject(scene: Scene): NonNullable<RunRecord['object']> {
  const s = scene.sliders.find((sl) => sl.id === scene.goal.slider)!;
  return { shape: s.shape, mass: s.mass, friction: s.friction };
}
