/**
 * `npm run bench -- noise [PUSHES]`: what WAFR 2018's noise level b means for one push under each
 * reading of its Eq. 9-10 (mu ~ N(0, beta(u)), beta(u) = b |u| "an action dependent variance
 * function", no simulation time step given). A wafr-low-accuracy object (drawn as the task's
 * first scene draws it) is pushed for one 1 s control at 0.02 and 0.1 m/s, PUSHES times (default
 * 40) with seeded noise streams, at every level b of WAFR Fig. 5, and the object's end position is
 * summarized: its spread (standard deviation along and across the push) and how often its centre
 * left the table. Deterministic counts, no timing. Readings, as the per-step standard deviation
 * of the velocity kick at our 1 ms MuJoCo step:
 * - std: b |u| (the execution world's, execution-world.ts);
 * - variance-per-step: sqrt(b |u|), b |u| read as the variance of each step's kick;
 * - variance-per-second: sqrt(b |u| dt), b |u| read as a variance per second of simulated time,
 *   so the spread does not depend on the step (per-step variance b |u| dt).
 */
import path from 'node:path';
import { FineModel } from '#physics/fine-model';
import type { Scene } from '#contract/scene';
import type { State } from '#contract/state';
import { deriveSeed, Rng } from '../src-main/common/rng';
import { sampleScene } from '../src-main/experiments/initial-states';
import { sceneSeed } from '../src-main/experiments/runner';
import { TaskGeometry } from '../src-main/planning/task-geometry';
import { controlMagnitude } from '../src-main/planning/control-space';
import { loadTaskFile } from '../src-main/planning/task-file';
import { printTable, writeResult, type Row } from './report';

export const READINGS = ['std', 'variance-per-step', 'variance-per-second'] as const;
export type Reading = (typeof READINGS)[number];
/** WAFR 2018 Sec. 7.1: low, medium and high uncertainty (none is b = 0). */
export const LEVELS = [0.05, 0.075, 0.1];
export const SPEEDS = [0.02, 0.1];

/** The per-step standard deviation of the velocity kick under a reading, for |u| = speed and MuJoCo step dt. */
export function kickStd(reading: Reading, b: number, speed: number, dt: number): number {
  if (reading === 'std') return b * speed;
  if (reading === 'variance-per-step') return Math.sqrt(b * speed);
  return Math.sqrt(b * speed * dt);
}

export interface SpreadRow {
  reading: Reading;
  b: number;
  speed: number;
  /** Per-step kick standard deviation (m/s). */
  kickStd: number;
  /** Mean push distance of the object's centre (m), noise-free. */
  pushed: number;
  /** Standard deviation of the end position along and across the push (m), over the pushes. */
  along: number;
  across: number;
  /** Pushes whose object centre ended off the table. */
  offTable: number;
  pushes: number;
}

const std = (xs: readonly number[]): number => {
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1));
};

/** Every reading, level and speed: the end-position spread of `pushes` seeded 1 s pushes. */
export async function noiseSpread(pushes: number): Promise<{ scene: Scene; rows: SpreadRow[] }> {
  const { task, scene: file } = loadTaskFile(path.resolve('resources/tasks/wafr-low-accuracy.json'));
  const seed = sceneSeed(1, 0);
  const { scene, x0 } = sampleScene(file, task.sampling, deriveSeed(seed, 'start'));
  const geometry = new TaskGeometry(scene);
  const goal = geometry.goalIndex;
  const start = geometry.layout.sliderPose(x0, goal);
  // The push points from the pusher at the object's centre (the sampler puts it just behind).
  const dir = [start.x - x0[0]!, start.y - x0[1]!];
  const norm = Math.hypot(dir[0]!, dir[1]!);
  const [ex, ey] = [dir[0]! / norm, dir[1]! / norm];
  const model = await FineModel.create(scene);
  const dt = scene.fine.timestep;
  const end = (x: State): { along: number; across: number } => {
    const p = geometry.layout.sliderPose(x, goal);
    const [dx, dy] = [p.x - start.x, p.y - start.y];
    return { along: dx * ex + dy * ey, across: -dx * ey + dy * ex };
  };
  const rows: SpreadRow[] = [];
  try {
    for (const speed of SPEEDS) {
      const u = [speed * ex, speed * ey];
      model.writeState(x0);
      model.advanceNoisy(u, 1, 0, () => 0);
      const pushed = end(model.readState()).along;
      for (const reading of READINGS)
        for (const b of LEVELS) {
          const sigma = kickStd(reading, b, controlMagnitude(u), dt);
          const along: number[] = [];
          const across: number[] = [];
          let offTable = 0;
          for (let i = 0; i < pushes; i++) {
            const rng = new Rng(deriveSeed(seed, `noise-${i}`));
            model.writeState(x0);
            model.advanceNoisy(u, 1, sigma, () => rng.normal());
            const x = model.readState();
            const e = end(x);
            along.push(e.along);
            across.push(e.across);
            if (geometry.offTableDistance(x, goal) > 0) offTable++;
          }
          rows.push({
            reading,
            b,
            speed,
            kickStd: sigma,
            pushed,
            along: std(along),
            across: std(across),
            offTable,
            pushes,
          });
        }
    }
  } finally {
    model.dispose();
  }
  return { scene, rows };
}

export async function run(args: string[]): Promise<void> {
  const pushes = Number(args[0] ?? 40);
  if (!Number.isInteger(pushes) || pushes < 2) throw new Error(`PUSHES: a whole number >= 2, got ${args[0]}`);
  const { scene, rows } = await noiseSpread(pushes);
  const goal = scene.sliders.find((s) => s.id === scene.goal.slider)!;
  const table: Row[] = rows.map((r) => ({
    reading: r.reading,
    b: r.b,
    'speed m/s': r.speed,
    'kick std m/s': r.kickStd,
    'pushed mm': Number((1000 * r.pushed).toFixed(1)),
    'along sd mm': Number((1000 * r.along).toFixed(2)),
    'across sd mm': Number((1000 * r.across).toFixed(2)),
    'off table': `${r.offTable}/${r.pushes}`,
  }));
  printTable(
    `WAFR noise readings: end position of a 1 s push of the wafr-low-accuracy object (${goal.shape.kind}, ${goal.mass.toFixed(2)} kg), ${pushes} seeded pushes, MuJoCo step ${scene.fine.timestep * 1000} ms`,
    table,
  );
  writeResult('noise', {
    pushes,
    timestep: scene.fine.timestep,
    object: { shape: goal.shape, mass: goal.mass, friction: goal.friction },
    rows: table,
  });
}
