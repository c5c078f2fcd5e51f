/**
 * One experiment run (one scene, one model) as stored on disk: runs/<model>/scene-<index>.json.
 * A run file is written only when the run is complete, so its presence is what makes an
 * experiment resumable and shards mergeable.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { runSummarySchema } from '#contract/planner-events';
import { shapeSchema } from '#contract/scene';
import { readStoredJson } from '../common/stored-json';

export const runRecordSchema = z
  .object({
    task: z.string(),
    model: z.string(),
    planner: z.string(),
    scene: z.number().int().min(0),
    seed: z.number().int().min(0),
    workers: z.number().int().min(1),
    controlDuration: z.number().positive(),
    /** Wall time of the whole run on this machine (planning + simulated execution), s. */
    wallTime: z.number().min(0),
    /**
     * The machine's 1-minute load average when the run started: a wall time (and a task time,
     * which counts planning) taken while other programs held the cores is not this machine's
     * figure. Absent in runs recorded before it was.
     */
    loadAtStart: z.number().min(0).optional(),
    /** The goal object of this scene when the task draws it per scene (WAFR 2018 Sec. 7.1). */
    object: z.object({ shape: shapeSchema, mass: z.number(), friction: z.number() }).strict().optional(),
    /** The run's session log, relative to the experiment's folder (recorded with --sessions). */
    session: z.string().optional(),
    summary: runSummarySchema,
  })
  .strict();
export type RunRecord = z.infer<typeof runRecordSchema>;

/** Whether a step's stored planning time is a plan's: a step that ran without one (the gripper's closing reflex) is stored as 0 s. */
export const wasPlanned = (planningTime: number): boolean => planningTime > 0;

/** File-name-safe form of a model spec: parareal:2 -> parareal-2. */
export function modelDir(model: string): string {
  return model.replace(/[^A-Za-z0-9_-]/g, '-');
}

export function runFile(outDir: string, model: string, scene: number): string {
  return path.join(outDir, 'runs', modelDir(model), `scene-${String(scene).padStart(4, '0')}.json`);
}

export function writeRunRecord(outDir: string, record: RunRecord): void {
  const file = runFile(outDir, record.model, record.scene);
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(runRecordSchema.parse(record))}\n`);
  renameSync(tmp, file); // atomic: a killed run never leaves a half-written result behind
}

export function hasRunRecord(outDir: string, model: string, scene: number): boolean {
  return existsSync(runFile(outDir, model, scene));
}

/** Every complete run under outDir/runs. */
export function readRunRecords(outDir: string): RunRecord[] {
  const root = path.join(outDir, 'runs');
  if (!existsSync(root)) return [];
  const out: RunRecord[] = [];
  for (const dir of readdirSync(root)) {
    for (const f of readdirSync(path.join(root, dir))) {
      if (!f.endsWith('.json')) continue;
      const file = path.join(root, dir, f);
      out.push(readStoredJson(file, runRecordSchema, { what: 'run record' }));
    }
  }
  return out;
}
