/**
 * `npm run bench -- planner [steps] [workers,...] [models,...]`: planning wall time of one MPC step on
 * isrr-obstacle (the shipped task's optimizer and prediction settings) for each prediction model
 * and worker count (default 1, 2, 4, 8, 15), beside the control duration that real-time MPC must
 * beat, and what `auto` picks. Steps are planned from states along a recorded run
 * (docs/experiments/isrr-obstacle, fine model, scene 0), pusher in contact, not only from the
 * start state.
 *
 * Equal accuracy: each plan's predicted end state is compared with the fine model run on the same
 * controls (the `vs fine` columns), so a faster model is only faster at the accuracy shown.
 * More workers than cores still shows the scheduling (how many rounds of fine jobs a step needs)
 * but not the speedup: the wall time cannot drop below the work divided by the cores. Machines
 * differ about 2x per core, so the table is printed beside this machine's figure of the physics
 * bench's RK4 1-slider row. Writes bench/results/planner.json and planner-crossover.svg.
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { State } from '#contract/state';
import { lineChartSvg } from '../src-main/experiments/svg-chart';
import { readRunRecords } from '../src-main/experiments/run-record';
import { meanCi95 } from '../src-main/experiments/stats';
import { FinePool } from '../src-main/parareal/fine-pool';
import { parseModelRequest } from '../src-main/parareal/model-choice';
import { modelLabel } from '../src-main/parareal/predictor';
import type { Control } from '../src-main/parareal/parareal';
import { loadTaskFile } from '../src-main/planning/task-file';
import { createTaskRun } from '../src-main/planning/task-run';
import { FineModel } from '#physics/fine-model';
import { physicsCostRow } from './physics';
import { printTable, writeResult, type Row } from './report';

const MODELS = 'coarse,parareal:1,parareal:2,parareal:3,fine,auto';

export async function run(args: string[]): Promise<void> {
  const steps = Number(args[0] ?? 5);
  const workerCounts = (args[1] ?? '1,2,4,8,15').split(',').map(Number);
  const models = (args[2] ?? MODELS).split(',');
  const { task, scene } = loadTaskFile(path.resolve('resources/tasks/isrr-obstacle.json'));
  const recorded = readRunRecords(path.resolve('docs/experiments/isrr-obstacle')).find(
    (r) => r.model === 'fine' && r.scene === 0,
  );
  if (!recorded)
    throw new Error('docs/experiments/isrr-obstacle has no fine run of scene 0 to take states from');
  // States after the first few pushes: the pusher is on the object and the obstacle is near.
  const along = recorded.summary.states.slice(1, 1 + steps).map((s) => Float64Array.from(s));
  const uPrev = recorded.summary.controls.map((u) => [u[0]!, u[1]!] as [number, number]);
  const reference = await physicsCostRow('RK4', 1, 7);
  const rk4StepUs = reference['fine us/step'] as number;
  // The fine model with the planner's own settings: the yardstick of "equal accuracy".
  const predictionScene = { ...scene, fine: task.planner.prediction };
  const fine = await FineModel.create(predictionScene);
  const fineEnd = (x: State, controls: readonly Control[]): State => {
    let s = x;
    for (const u of controls) s = fine.step(s, u, task.planner.controlDuration);
    return s;
  };
  const L = fine.layout;
  const control = task.planner.controlDuration;
  const rows: Row[] = [];
  try {
    for (const workers of workerCounts) {
      const pool = new FinePool({ workers });
      try {
        for (const spec of models) {
          const parts = await createTaskRun({ task, scene, pool, model: parseModelRequest(spec), seed: 1 });
          const times: number[] = [];
          const errMm: number[] = [];
          const errDeg: number[] = [];
          let prediction = 0;
          for (let s = 0; s < along.length; s++) {
            const t0 = performance.now();
            const plan = await parts.planner.plan({ x: along[s]!, step: s + 1, uPrev: uPrev[s]! });
            times.push((performance.now() - t0) / 1000);
            prediction += plan.predictionMs / 1000;
            const predicted = plan.iterates[plan.iterates.length - 1]!;
            const d = L.maxSliderPoseChange(
              predicted[predicted.length - 1]!,
              fineEnd(along[s]!, plan.controls),
            );
            errMm.push(d.translation * 1000);
            errDeg.push((d.rotation * 180) / Math.PI);
          }
          parts.dispose();
          const m = meanCi95(times);
          rows.push({
            model: spec === 'auto' ? `auto (${modelLabel(parts.model)})` : spec,
            workers,
            'plan s/step': m.mean,
            '±95%': m.ci95,
            'vs fine mm': errMm.reduce((a, b) => a + b, 0) / errMm.length,
            'vs fine deg': errDeg.reduce((a, b) => a + b, 0) / errDeg.length,
            'prediction share': prediction / times.reduce((a, b) => a + b, 0),
            'control s': control,
            'real-time': m.mean <= control ? 'yes' : 'no',
          });
        }
      } finally {
        await pool.close();
      }
    }
  } finally {
    fine.dispose();
  }
  const o = task.planner.optimizer;
  const p = task.planner.prediction;
  printTable(
    `planner: one MPC step on isrr-obstacle (${o.rollouts} rollouts x ${o.maxIterations} iteration(s) + candidates, horizon ${task.planner.horizon}, predictions ${p.integrator} ${p.timestep * 1000} ms), ${along.length} steps along a run each; this machine: ${reference.integrator} 1-slider row of the physics bench ${rk4StepUs.toFixed(1)} us/step, ${os.availableParallelism()} cores`,
    rows,
  );
  const chart = crossoverChart(rows, workerCounts, control);
  const dir = path.dirname(
    writeResult('planner', {
      steps: along.length,
      optimizer: o,
      prediction: p,
      horizon: task.planner.horizon,
      rk4OneSliderStepUs: rk4StepUs,
      rows,
    }),
  );
  const svg = path.join(dir, 'planner-crossover.svg');
  writeFileSync(svg, chart);
  process.stdout.write(`wrote ${path.relative(process.cwd(), svg)}\n`);
}

/** Planning time per step against worker count, one line per model, the control duration dashed. */
function crossoverChart(rows: readonly Row[], workerCounts: readonly number[], control: number): string {
  const base = (m: string): string => (m.startsWith('auto') ? 'auto' : m);
  const models = [...new Set(rows.map((r) => base(String(r.model))))].filter((m) => m !== 'auto');
  return lineChartSvg({
    title: 'isrr-obstacle: planning time of one MPC step against fine-model workers',
    xLabel: 'workers',
    yLabel: 'planning s/step',
    x: workerCounts.map(String),
    series: models.map((m) => ({
      label: m,
      values: workerCounts.map((w) => {
        const r = rows.find((row) => base(String(row.model)) === m && row.workers === w);
        return r ? Number(r['plan s/step']) : Number.NaN;
      }),
    })),
    reference: { value: control, label: `control ${control} s` },
  });
}
