/**
 * `npm run bench -- planner [steps] [workers,...] [models,...]`: planning wall time of one MPC step on
 * isrr-obstacle (the shipped task's optimizer and prediction settings) for each prediction model
 * and worker count (default 1, 2, 4, 8, 15), beside the control duration that real-time MPC must
 * beat, and what `auto` picks. Steps are planned from states along a recorded run
 * (docs/experiments/isrr-obstacle, fine model, scene 0), pusher in contact, not only from the
 * start state. Writes bench/results/planner.json and planner-crossover.svg.
 *
 * `npm run bench -- planner --task NAME [--steps N] [--workers 2,...] [--models auto,fine/mpc]`:
 * the same for any shipped task of resources/tasks, with the task's own planner (MPC, TAMPC or
 * UAMPC; a model spec may name another, as experiments do: fine/uampc) and prediction settings,
 * from states its committed fine-model runs planned from, spread over every scene (each drawn as
 * the experiment drew it; recordedStates). Defaults: 10 steps (a mean over 3 states had a 95%
 * interval wider than a clutter control), 2 workers, the task's default model (`auto`).
 * Writes bench/results/planner-NAME.json with the same row fields and a `profile` of the work a
 * step asks of the pool (fine jobs, MuJoCo steps, objects simulated). TAMPC's `prediction share`
 * can pass 1: its candidates predict concurrently and each counts its own prediction time.
 *
 * Equal accuracy: each plan's predicted end state is compared with the fine model run on the same
 * controls (the `vs fine` columns), so a faster model is only faster at the accuracy shown.
 * More workers than cores still shows the scheduling (how many rounds of fine jobs a step needs)
 * but not the speedup: the wall time cannot drop below the work divided by the cores. Machines
 * differ about 2x per core, so the table is printed beside this machine's figure of the physics
 * bench's RK4 1-slider row.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { type Control } from '#contract/state';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Scene } from '#contract/scene';
import type { State } from '#contract/state';
import { lineChartSvg } from '../src-main/experiments/svg-chart';
import { readRunRecords, wasPlanned } from '../src-main/experiments/run-record';
import { parseRunSpec } from '../src-main/experiments/run-spec';
import { taskForRun } from '../src-main/planning/task-for-run';
import { meanCi95 } from '../src-main/experiments/stats';
import { FinePool, type FineJobInput } from '../src-main/parareal/fine-pool';
import { predictionModelSpec } from '../src-main/parareal/predictor';
import { loadTaskFile, type Task } from '../src-main/planning/task-file';
import { createTaskRun } from '../src-main/planning/task-run';
import { restControl } from '../src-main/planning/control-space';
import { FineModel, stepCount } from '#physics/fine-model';
import type { FineResult } from '#contract/worker-protocol';
import { physicsCostRow } from './physics';
import { fineRuns, type RecordedRun } from './recorded-runs';
import { printTable, writeResult, type Row } from './report';

const MODELS = 'coarse,parareal:1,parareal:2,parareal:3,fine,auto';

/** What a `planner` invocation benchmarks. */
export interface PlannerBenchArgs {
  /** null: isrr-obstacle as the original positional form, writing planner.json and the chart. */
  task: string | null;
  steps: number;
  workers: number[];
  models: string[];
}

/** Positional `[steps] [workers] [models]` as before, or `--task NAME` with its options. */
export function parsePlannerArgs(args: readonly string[]): PlannerBenchArgs {
  if (!args.includes('--task')) {
    return {
      task: null,
      steps: Number(args[0] ?? 5),
      workers: (args[1] ?? '1,2,4,8,15').split(',').map(Number),
      models: (args[2] ?? MODELS).split(','),
    };
  }
  const opts = new Map<string, string>();
  for (let i = 0; i < args.length; i += 2) {
    const key = args[i]!;
    const value = args[i + 1];
    if (!['--task', '--steps', '--workers', '--models'].includes(key) || value === undefined)
      throw new Error(
        `planner --task NAME [--steps N] [--workers W,...] [--models M,...]: cannot read "${args.join(' ')}"`,
      );
    opts.set(key, value);
  }
  const out: PlannerBenchArgs = {
    task: opts.get('--task')!,
    steps: Number(opts.get('--steps') ?? 10),
    workers: (opts.get('--workers') ?? '2').split(',').map(Number),
    models: (opts.get('--models') ?? 'auto').split(','),
  };
  if (!Number.isInteger(out.steps) || out.steps < 1) throw new Error(`--steps must be a whole number >= 1`);
  if (out.workers.some((w) => !Number.isInteger(w) || w < 1))
    throw new Error(`--workers must be whole numbers >= 1`);
  return out;
}

/** A recorded run's states to plan from, with the control executed before each, on the scene it ran. */
export interface RecordedStates {
  run: RecordedRun;
  along: State[];
  /** Each state's index along its run (the planner's step number). */
  indices: number[];
  uPrev: Control[];
}

/**
 * `steps` of the states the task's committed fine-model runs of its own planner planned from,
 * spread evenly over all of them in scene order (recorded-runs.ts), so the bench's mean estimates
 * the experiment's mean over its planned steps: not a run's last state (the run ended there) nor a
 * reflex step (the clutter grasp's close, planning time 0). Three states along one run, as the
 * bench took before, gave a 95% interval wider than a clutter control: one heavy scene decided it.
 */
export function recordedStates(
  taskName: string,
  task: Task,
  baseScene: Scene,
  steps: number,
  experimentsDir?: string,
): RecordedStates[] {
  const runs = fineRuns(taskName, task, baseScene, experimentsDir);
  const own = runs.filter((r) => r.record.planner === task.planner.kind);
  const planned = (own.length > 0 ? own : runs).flatMap((run) =>
    run.record.summary.planningTimes.flatMap((t, i) => (wasPlanned(t) ? [{ run, i }] : [])),
  );
  if (planned.length === 0)
    throw new Error(
      `no committed fine-model run of ${taskName} to take states from; run a short experiment first (docs/experiments/README.md)`,
    );
  const n = Math.min(steps, planned.length);
  const out: RecordedStates[] = [];
  for (let k = 0; k < n; k++) {
    const { run, i } = planned[Math.floor(((k + 0.5) * planned.length) / n)]!;
    const { states, controls } = run.record.summary;
    let seg = out[out.length - 1];
    if (seg?.run !== run) {
      seg = { run, along: [], indices: [], uPrev: [] };
      out.push(seg);
    }
    seg.along.push(Float64Array.from(states[i]!));
    seg.indices.push(i);
    // Before the first control the robot was at rest.
    seg.uPrev.push(i === 0 ? restControl(controls[0]!.length) : [...controls[i - 1]!]);
  }
  return out;
}

/** "<folder> <model> scene 0", or the folder, model and scene range when the states span runs. */
function describeSources(segments: readonly RecordedStates[]): string {
  const first = segments[0]!.run;
  const last = segments[segments.length - 1]!.run;
  if (segments.length === 1 || segments.some((seg) => seg.run.experiment !== first.experiment))
    return segments.map((seg) => seg.run.source).join(', ');
  return `${first.experiment} scenes ${first.record.scene}-${last.record.scene}`;
}

/** The work the planner hands the pool, counted per job: what a step costs before any speedup. */
class CountingPool extends FinePool {
  jobs = 0;
  mujocoSteps = 0;
  /** Worker time of the fine jobs so far (s). */
  jobTime = 0;
  private readonly timesteps = new Map<string, number>();

  override registerScene(scene: Scene): string {
    const key = super.registerScene(scene);
    this.timesteps.set(key, scene.fine.timestep);
    return key;
  }

  override async run(input: FineJobInput, signal?: AbortSignal): Promise<FineResult> {
    const h = this.timesteps.get(input.sceneKey)!;
    this.jobs++;
    this.mujocoSteps += input.controls.length * stepCount(input.dt, h);
    if (input.noise && input.noise.rest > 0) this.mujocoSteps += stepCount(input.noise.rest, h);
    const r = await super.run(input, signal);
    this.jobTime += r.seconds;
    return r;
  }

  reset(): void {
    this.restore({ jobs: 0, mujocoSteps: 0, jobTime: 0 });
  }

  counts(): { jobs: number; mujocoSteps: number; jobTime: number } {
    return { jobs: this.jobs, mujocoSteps: this.mujocoSteps, jobTime: this.jobTime };
  }

  restore(c: { jobs: number; mujocoSteps: number; jobTime: number }): void {
    ({ jobs: this.jobs, mujocoSteps: this.mujocoSteps, jobTime: this.jobTime } = c);
  }

  /** CPU seconds the live workers have used (Linux /proc; null elsewhere). */
  workerCpuTime(): number | null {
    let total = 0;
    for (const pid of this.pids()) {
      const stat = `/proc/${pid}/stat`;
      if (!existsSync(stat)) return null;
      // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
      const fields = readFileSync(stat, 'utf8').split(') ')[1]!.split(' ');
      total += (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
    }
    return total;
  }
}

/** Linux's USER_HZ, the unit of /proc/<pid>/stat's CPU times. */
const CLOCK_TICKS = 100;

/**
 * A step's time on an otherwise idle machine: the workers' CPU time spread over the cores they
 * can use, plus the planner's own. On a loaded machine the wall time measures the load too; the
 * CPU times do not (cache and scheduling effects aside).
 */
function idleEstimate(workerCpu: number, mainCpu: number, workers: number): number {
  return workerCpu / Math.min(workers, os.availableParallelism()) + mainCpu;
}

export async function run(args: string[]): Promise<void> {
  const a = parsePlannerArgs(args);
  const taskName = a.task ?? 'isrr-obstacle';
  const { task, scene: baseScene } = loadTaskFile(path.resolve(`resources/tasks/${taskName}.json`));
  let segments: RecordedStates[];
  if (a.task === null) {
    const recorded = readRunRecords(path.resolve('docs/experiments/isrr-obstacle')).find(
      (r) => r.model === 'fine' && r.scene === 0,
    );
    if (!recorded)
      throw new Error('docs/experiments/isrr-obstacle has no fine run of scene 0 to take states from');
    // States after the first few pushes: the pusher is on the object and the obstacle is near.
    segments = [
      {
        run: {
          experiment: 'docs/experiments/isrr-obstacle fine',
          source: 'docs/experiments/isrr-obstacle fine scene 0',
          record: recorded,
          scene: baseScene,
        },
        along: recorded.summary.states.slice(1, 1 + a.steps).map((s) => Float64Array.from(s)),
        indices: recorded.summary.states.slice(1, 1 + a.steps).map((_, s) => s + 1),
        uPrev: recorded.summary.controls.map((u) => [...u]),
      },
    ];
  } else segments = recordedStates(taskName, task, baseScene, a.steps);
  const stepCountAll = segments.reduce((n, seg) => n + seg.along.length, 0);
  const scene = segments[0]!.run.scene;
  const reference = await physicsCostRow('RK4', 1, 7);
  const rk4StepUs = reference['fine us/step'] as number;
  // Fine models with the planner's own settings, one per recorded scene: the yardstick of "equal accuracy".
  const fines = await Promise.all(
    segments.map((seg) => FineModel.create({ ...seg.run.scene, fine: task.planner.prediction })),
  );
  const control = task.planner.controlDuration;
  const fineEnd = (fine: FineModel, x: State, controls: readonly Control[]): State => {
    let s = x;
    for (const u of controls) s = fine.step(s, u, control);
    return s;
  };
  const rows: Row[] = [];
  const profile: Row[] = [];
  try {
    for (const workers of a.workers) {
      const pool = new CountingPool({ workers });
      try {
        await pool.warm();
        for (const spec of a.models) {
          const runSpec = parseRunSpec(spec);
          const specTask = taskForRun(task, { planner: runSpec.planner ?? undefined });
          // The planner's own CPU time, not the accuracy check's fine steps below.
          let mainCpuUs = 0;
          const times: number[] = [];
          const errMm: number[] = [];
          const errDeg: number[] = [];
          let prediction = 0;
          let label = spec;
          let workerCpu: number | null = 0;
          pool.reset();
          for (const [i, seg] of segments.entries()) {
            const parts = await createTaskRun({
              task: specTask,
              scene: seg.run.scene,
              pool,
              model: runSpec.model,
              coarse: runSpec.coarse,
              seed: 1,
            });
            // Each scene's first compile on the workers is start-up, not planning (docs/planner.md).
            const counted = pool.counts();
            await pool.warm();
            pool.restore(counted);
            const workerCpu0 = pool.workerCpuTime();
            const fine = fines[i]!;
            for (let s = 0; s < seg.along.length; s++) {
              const t0 = performance.now();
              const c0 = process.cpuUsage();
              const plan = await parts.planner.plan({
                x: seg.along[s]!,
                step: seg.indices[s]!,
                uPrev: seg.uPrev[s]!,
              });
              times.push((performance.now() - t0) / 1000);
              const c = process.cpuUsage(c0);
              mainCpuUs += c.user + c.system;
              prediction += plan.predictionTime;
              const predicted = plan.iterates[plan.iterates.length - 1]!;
              const d = fine.layout.maxSliderPoseChange(
                predicted[predicted.length - 1]!,
                fineEnd(fine, seg.along[s]!, plan.controls),
              );
              errMm.push(d.translation * 1000);
              errDeg.push((d.rotation * 180) / Math.PI);
            }
            const workerCpu1 = pool.workerCpuTime();
            workerCpu =
              workerCpu === null || workerCpu0 === null || workerCpu1 === null
                ? null
                : workerCpu + workerCpu1 - workerCpu0;
            if (spec === 'auto') label = `auto (${predictionModelSpec(parts.model)})`;
            parts.dispose();
          }
          const mainPerStep = mainCpuUs / 1e6 / stepCountAll;
          const workerPerStep = workerCpu === null ? null : workerCpu / stepCountAll;
          const m = meanCi95(times);
          rows.push({
            model: label,
            workers,
            'plan s/step': m.mean,
            '±95%': m.ci95,
            'vs fine mm': errMm.reduce((x, y) => x + y, 0) / errMm.length,
            'vs fine deg': errDeg.reduce((x, y) => x + y, 0) / errDeg.length,
            'prediction share': prediction / times.reduce((x, y) => x + y, 0),
            'control s': control,
            'real-time': m.mean <= control ? 'yes' : 'no',
          });
          profile.push({
            model: label,
            workers,
            planner: specTask.planner.kind,
            objects: scene.sliders.length,
            'fine jobs/step': pool.jobs / stepCountAll,
            'MuJoCo steps/step': pool.mujocoSteps / stepCountAll,
            'us/MuJoCo step': pool.mujocoSteps > 0 ? (pool.jobTime * 1e6) / pool.mujocoSteps : 0,
            'job s/step': pool.jobTime / stepCountAll,
            'worker CPU s/step': workerPerStep ?? '',
            'planner CPU s/step': mainPerStep,
            'idle-machine s/step':
              workerPerStep === null ? '' : idleEstimate(workerPerStep, mainPerStep, workers),
          });
        }
      } finally {
        await pool.close();
      }
    }
  } finally {
    for (const fine of fines) fine.dispose();
  }
  const o = task.planner.optimizer;
  const p = task.planner.prediction;
  // TAMPC and UAMPC optimize each candidate with tampc.iterations when the task sets it (planners.ts).
  const iterations =
    task.planner.kind === 'mpc' ? o.maxIterations : (task.planner.tampc.iterations ?? o.maxIterations);
  printTable(
    `planner: one ${task.planner.kind.toUpperCase()} step on ${taskName} (${o.rollouts} rollouts x ${iterations} iteration(s) + candidates, horizon ${task.planner.horizon}, predictions ${p.integrator} ${p.timestep * 1000} ms, ${scene.sliders.length} object(s)), ${stepCountAll} steps along ${describeSources(segments)}; this machine: ${reference.integrator} 1-slider row of the physics bench ${rk4StepUs.toFixed(1)} us/step, ${os.availableParallelism()} cores`,
    rows,
  );
  printTable(`planner: work per step on ${taskName}`, profile);
  const result = {
    task: taskName,
    planner: task.planner.kind,
    states: segments.length === 1 ? segments[0]!.run.source : segments.map((seg) => seg.run.source),
    steps: stepCountAll,
    optimizer: o,
    ...(task.planner.kind === 'mpc' ? {} : { tampc: task.planner.tampc }),
    prediction: p,
    horizon: task.planner.horizon,
    rk4OneSliderStepUs: rk4StepUs,
    rows,
    profile,
  };
  if (a.task !== null) {
    writeResult(`planner-${taskName}`, result);
    return;
  }
  const chart = crossoverChart(rows, a.workers, control);
  const dir = path.dirname(writeResult('planner', result));
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
