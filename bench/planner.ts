/**
 * `npm run bench -- planner [steps] [workers,...]`: planning wall time of one MPC step on
 * isrr-obstacle (the shipped task's optimizer settings) for each prediction model and worker
 * count, beside the control duration that real-time MPC must beat.
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { FinePool } from '../src-main/parareal/fine-pool';
import { parseModelSpec } from '../src-main/parareal/predictor';
import { loadTaskFile } from '../src-main/planning/task-file';
import { createTaskRun } from '../src-main/planning/task-run';
import { sampleInitialState } from '../src-main/experiments/initial-states';
import { printTable, writeResult, type Row } from './report';
import { meanCi95 } from '../src-main/experiments/stats';

export async function run(args: string[]): Promise<void> {
  const steps = Number(args[0] ?? 3);
  const workerCounts = (args[1] ?? '1,2').split(',').map(Number);
  const { task, scene } = loadTaskFile(path.resolve('resources/tasks/isrr-obstacle.json'));
  const x0 = sampleInitialState(scene, task.sampling, 1);
  const rows: Row[] = [];
  for (const workers of workerCounts) {
    const pool = new FinePool({ workers });
    try {
      for (const spec of ['coarse', 'parareal:1', 'parareal:2', 'parareal:3', 'fine']) {
        const parts = await createTaskRun({ task, scene, pool, model: parseModelSpec(spec), seed: 1 });
        const times: number[] = [];
        let prediction = 0;
        for (let s = 0; s < steps; s++) {
          const t0 = performance.now();
          const plan = await parts.planner.plan({ x: x0, step: s, uPrev: [0, 0] });
          times.push((performance.now() - t0) / 1000);
          prediction += plan.predictionMs / 1000;
        }
        parts.dispose();
        const m = meanCi95(times);
        rows.push({
          model: spec,
          workers,
          'plan s/step': m.mean,
          '±95%': m.ci95,
          'prediction share': prediction / times.reduce((a, b) => a + b, 0),
          'control s': task.planner.controlDuration,
          'real-time': m.mean <= task.planner.controlDuration ? 'yes' : 'no',
        });
      }
    } finally {
      await pool.close();
    }
  }
  const o = task.planner.optimizer;
  printTable(
    `planner: one MPC step on isrr-obstacle (${o.rollouts} rollouts x ${o.maxIterations} iteration(s), horizon ${task.planner.horizon}), ${steps} steps each`,
    rows,
  );
  writeResult('planner', { steps, optimizer: o, horizon: task.planner.horizon, rows });
}
