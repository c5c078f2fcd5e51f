/**
 * `npm run bench -- planner [steps] [workers,...]`: planning wall time of one MPC step on
 * isrr-obstacle (the shipped task's optimizer and prediction settings) for each prediction model
 * and worker count, beside the control duration that real-time MPC must beat. Steps are planned
 * from states along a recorded run (docs/experiments/isrr-obstacle, fine model, scene 0), pusher
 * in contact, not only from the start state. Machines differ about 2x per core, so the table is
 * printed beside this machine's cost of an RK4 1 ms step with one slider (the physics bench's row).
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { FinePool } from '../src-main/parareal/fine-pool';
import { parseModelSpec } from '../src-main/parareal/predictor';
import { loadTaskFile } from '../src-main/planning/task-file';
import { createTaskRun } from '../src-main/planning/task-run';
import { readRunRecords } from '../src-main/experiments/run-record';
import { FineModel } from '../src-workers/physics/fine-model';
import { printTable, writeResult, type Row } from './report';
import { meanCi95 } from '../src-main/experiments/stats';

/** This machine's cost of one RK4 1 ms MuJoCo step with one slider in contact (us). */
async function rk4StepUs(scene: Parameters<typeof FineModel.create>[0], x: Float64Array): Promise<number> {
  const fine = await FineModel.create({ ...scene, fine: { integrator: 'RK4', timestep: 0.001 } });
  try {
    fine.step(x, 0.05, 0, 1);
    const samples: number[] = [];
    for (let r = 0; r < 5; r++) {
      const t0 = performance.now();
      fine.step(x, 0.05, 0, 1);
      // ms per 1000 steps is us per step.
      samples.push(performance.now() - t0);
    }
    return samples.sort((a, b) => a - b)[2]!;
  } finally {
    fine.dispose();
  }
}

export async function run(args: string[]): Promise<void> {
  const steps = Number(args[0] ?? 3);
  const workerCounts = (args[1] ?? '1,2').split(',').map(Number);
  const { task, scene } = loadTaskFile(path.resolve('resources/tasks/isrr-obstacle.json'));
  const recorded = readRunRecords(path.resolve('docs/experiments/isrr-obstacle')).find(
    (r) => r.model === 'fine' && r.scene === 0,
  );
  if (!recorded)
    throw new Error('docs/experiments/isrr-obstacle has no fine run of scene 0 to take states from');
  // States after the first few pushes: the pusher is on the object and the obstacle is near.
  const along = recorded.summary.states.slice(1, 1 + steps).map((s) => Float64Array.from(s));
  const uPrev = recorded.summary.controls.map((u) => [u[0]!, u[1]!] as [number, number]);
  const stepUs = await rk4StepUs(scene, along[0]!);
  const rows: Row[] = [];
  for (const workers of workerCounts) {
    const pool = new FinePool({ workers });
    try {
      for (const spec of ['coarse', 'parareal:1', 'parareal:2', 'parareal:3', 'fine']) {
        const parts = await createTaskRun({ task, scene, pool, model: parseModelSpec(spec), seed: 1 });
        const times: number[] = [];
        let prediction = 0;
        for (let s = 0; s < along.length; s++) {
          const t0 = performance.now();
          const plan = await parts.planner.plan({ x: along[s]!, step: s + 1, uPrev: uPrev[s]! });
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
  const p = task.planner.prediction;
  printTable(
    `planner: one MPC step on isrr-obstacle (${o.rollouts} rollouts x ${o.maxIterations} iteration(s) + candidates, horizon ${task.planner.horizon}, predictions ${p.integrator} ${p.timestep * 1000} ms), ${along.length} steps along a run each; this machine: RK4 1 ms step ${stepUs.toFixed(1)} us (1 slider)`,
    rows,
  );
  writeResult('planner', {
    steps: along.length,
    optimizer: o,
    prediction: p,
    horizon: task.planner.horizon,
    rk4StepUs: stepUs,
    rows,
  });
}
