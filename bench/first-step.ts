/**
 * `npm run bench -- first-step [--task NAME] [--steps N] [--workers W]`: does a run's first step
 * plan slower per unit of work than its later steps when the workers are already warm, as they
 * are for the second and later runs of a console? In process, without the virtual lab (so nothing
 * else of ours shares the cores): a pool of W fresh workers first plans another task's first step
 * twice (cvs-multi-object; the console's first run starts its workers like this), then the task's
 * scene is registered on the warm workers as each console run registers its own, its first step
 * is planned three times from the scene's start, and an MPC run of N steps follows in the
 * simulated execution world. Prediction uses the fine model (what `auto` picks on a few workers).
 *
 * Every fine job (one per predicted sequence) reports its worker's CPU time and the MuJoCo solver
 * iterations summed over its steps, a count that no load changes. A least-squares line
 * CPU = a + b * iterations is fitted to the run's later steps' jobs (the steady state); each
 * group's mean residual from it says whether its sequences ran slower than their work explains:
 * near 0, as fast per unit of work as the steady state. CPU time is far less stretched by other
 * processes than wall time, but not untouched (shared caches), so the line comes from this run.
 * Writes bench/results/first-step.json.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { initialState } from '#contract/state';
import type { FineResult } from '#contract/worker-protocol';
import { FinePool, type FineJobInput } from '../src-main/parareal/fine-pool';
import { restControl } from '../src-main/planning/control-space';
import { ExecutionWorld } from '../src-main/planning/execution-world';
import { loadTaskFile } from '../src-main/planning/task-file';
import { createTaskRun, runTaskOn } from '../src-main/planning/task-run';
import { printTable, writeResult, type Row } from './report';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** One fine job as its worker reported it. */
interface Job {
  cpu: number;
  solverIterations: number;
}

/** Records every job's result under the group being measured. */
class RecordingPool extends FinePool {
  group: Job[] = [];

  override async run(input: FineJobInput, signal?: AbortSignal): Promise<FineResult> {
    const jobs = this.group;
    const r = await super.run(input, signal);
    jobs.push({ cpu: r.cpu, solverIterations: r.solverIterations });
    return r;
  }
}

/** Least squares y = a + b x. */
export function fitLine(points: readonly { x: number; y: number }[]): { a: number; b: number } {
  const n = points.length;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  const sxx = points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  const b = sxx > 0 ? points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0) / sxx : 0;
  return { a: my - b * mx, b };
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      task: { type: 'string', default: 'isrr-obstacle' },
      steps: { type: 'string', default: '8' },
      workers: { type: 'string', default: '2' },
    },
  });
  const steps = Number(values.steps);
  const workers = Number(values.workers);
  if (!Number.isInteger(steps) || steps < 2) throw new Error('--steps must be a whole number >= 2');
  const tasks = path.join(root, 'resources/tasks');
  const loaded = loadTaskFile(path.join(tasks, `${values.task}.json`));
  const other = loadTaskFile(path.join(tasks, 'cvs-multi-object.json'));
  const pool = new RecordingPool({ workers });
  const groups: { label: string; jobs: Job[] }[] = [];
  const measure = async (label: string, f: () => Promise<unknown>): Promise<void> => {
    pool.group = [];
    groups.push({ label, jobs: pool.group });
    await f();
  };
  const fine = { kind: 'fine' } as const;
  try {
    const warmUp = await createTaskRun({ task: other.task, scene: other.scene, pool, model: fine, seed: 1 });
    await pool.warm();
    const rest = restControl(2);
    const planOther = () => warmUp.planner.plan({ x: initialState(other.scene), step: 0, uPrev: rest });
    await measure('fresh workers: another scene, first plan', planOther);
    await measure('fresh workers: another scene, second plan', planOther);

    const parts = await createTaskRun({ task: loaded.task, scene: loaded.scene, pool, model: fine, seed: 1 });
    await pool.warm();
    const x0 = initialState(loaded.scene);
    for (let k = 1; k <= 3; k++)
      await measure(`scene registered on warm workers: step 0, plan ${k}`, () =>
        parts.planner.plan({ x: x0, step: 0, uPrev: rest }),
      );

    // The run: jobs go to the group of the step being planned (a step's record comes after its plan).
    const world = await ExecutionWorld.create(loaded.scene, loaded.task.execution.noise, 7, x0);
    const runSteps: Job[][] = [[]];
    pool.group = runSteps[0]!;
    await runTaskOn({
      task: { ...loaded.task, planner: { ...loaded.task.planner, maxExecutedActions: steps } },
      scene: loaded.scene,
      pool,
      model: fine,
      seed: 1,
      plant: world,
      onStep: () => {
        pool.group = [];
        runSteps.push(pool.group);
      },
    });
    world.dispose();
    groups.push({ label: 'run: step 0', jobs: runSteps[0]! });
    groups.push({ label: 'run: later steps', jobs: runSteps.slice(1).flat() });
  } finally {
    await pool.close();
  }

  const steady = groups[groups.length - 1]!.jobs;
  const line = fitLine(steady.map((j) => ({ x: j.solverIterations, y: 1000 * j.cpu })));
  const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
  const rows: Row[] = groups
    .filter((g) => g.jobs.length > 0)
    .map(({ label, jobs }) => ({
      plans: label,
      sequences: jobs.length,
      'worker CPU ms/sequence': Number(mean(jobs.map((j) => 1000 * j.cpu)).toFixed(1)),
      'solver iterations/sequence': Math.round(mean(jobs.map((j) => j.solverIterations))),
      'ms/sequence from the iterations': Number(
        (line.a + line.b * mean(jobs.map((j) => j.solverIterations))).toFixed(1),
      ),
      'mean residual ms/sequence': Number(
        mean(jobs.map((j) => 1000 * j.cpu - (line.a + line.b * j.solverIterations))).toFixed(1),
      ),
    }));
  const fit = {
    'CPU ms/sequence': `${line.a.toFixed(1)} + ${(1000 * line.b).toFixed(2)} per 1000 solver iterations`,
    'fitted to': `${steady.length} sequences of the run's steps 1-${steps - 1}`,
  };
  printTable(
    `A run's first step against its later steps on warm workers (${values.task}, fine model, ${workers} workers)`,
    rows,
  );
  printTable('The steady state: worker CPU time per sequence against its solver iterations', [fit]);
  writeResult('first-step', { task: values.task, workers, steps, fit, groups: rows });
}
