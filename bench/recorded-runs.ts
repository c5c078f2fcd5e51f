/**
 * Committed experiments' fine-model runs of a task, each on the scene as the experiment drew it
 * for that run (the WAFR tasks draw the goal object, the clutter task every object, so a run's
 * states fit only its own scene): where the planner and physics benchmarks take real situations.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { Scene } from '#contract/scene';
import { deriveSeed } from '../src-main/common/rng';
import { sampleScene } from '../src-main/experiments/initial-states';
import { readRunRecords, type RunRecord } from '../src-main/experiments/run-record';
import { readExperimentFile, sceneSeed } from '../src-main/experiments/runner';
import { parseRunSpec } from '../src-main/experiments/run-spec';
import type { Task } from '../src-main/planning/task-file';

export interface RecordedRun {
  /** "docs/experiments/<folder> <model>": the experiment and model that made the run. */
  experiment: string;
  /** "<experiment> scene <n>". */
  source: string;
  record: RunRecord;
  scene: Scene;
}

/**
 * Every committed synchronous fine-model run of the task, its first scene and the task's own
 * planner first. Asynchronous runs are left out: they planned from predicted states, not from the
 * observed ones the benchmarks plan from.
 */
export function fineRuns(
  taskName: string,
  task: Task,
  baseScene: Scene,
  experimentsDir = path.resolve('docs/experiments'),
): RecordedRun[] {
  const found: { dir: string; record: RunRecord }[] = [];
  for (const name of existsSync(experimentsDir) ? readdirSync(experimentsDir).sort() : []) {
    const file = path.join(experimentsDir, name, 'experiment.json');
    if (!existsSync(file)) continue;
    const identity = readExperimentFile(path.join(experimentsDir, name));
    if (identity.task !== taskName || identity.loopMode === 'asynchronous') continue;
    for (const record of readRunRecords(path.join(experimentsDir, name)))
      if (parseRunSpec(record.model).model.kind === 'fine') found.push({ dir: name, record });
  }
  const rank = (r: RunRecord): number => r.scene * 2 + (r.planner === task.planner.kind ? 0 : 1);
  return found
    .sort((a, b) => rank(a.record) - rank(b.record))
    .map(({ dir, record }) => {
      const experiment = `docs/experiments/${dir} ${record.model}`;
      const source = `${experiment} scene ${record.scene}`;
      const { scene, x0 } = sampleScene(
        baseScene,
        task.sampling,
        deriveSeed(sceneSeed(record.seed, record.scene), 'start'),
      );
      // The run started where the drawn scene starts, or the task's sampling changed since it ran.
      const start = record.summary.states[0]!;
      if (start.length !== x0.length || start.some((v, i) => Math.abs(v - x0[i]!) > 1e-9))
        throw new Error(
          `${source} did not start where ${taskName}'s sampling now draws it; rerun that experiment`,
        );
      return { experiment, source, record, scene };
    });
}
