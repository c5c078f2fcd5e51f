/**
 * `npm run bench -- physics-fit [RUNS] [WORKERS] [EVALUATIONS]`: the time `physics fit` takes on
 * RUNS simulated lab logs (default 10, five 1 s pushes each, a world with twice the scene's object
 * friction) on WORKERS fine workers (default 2), fitting object and table friction with a budget
 * of EVALUATIONS objective evaluations (default 40), one held-out run in three. Prints the fit's
 * wall time, the time per evaluation and the fitted values; writes bench/results/physics-fit.json.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { readLoggedPushes } from '../src-main/lab-physics/executed-pushes';
import { fitRun } from '../src-main/lab-physics/fit-run';
import { poolReplay } from '../src-main/lab-physics/prediction-error';
import { FinePool } from '../src-main/parareal/fine-pool';
import {
  boxScene,
  PROBE_CONTROLS,
  scaledPhysics,
  simulatedLabLog,
} from '../test/lab-physics/simulated-lab-log';
import { printTable, writeResult } from './report';

function whole(arg: string | undefined, fallback: number, name: string): number {
  const v = Number(arg ?? fallback);
  if (!Number.isInteger(v) || v < 1) throw new Error(`${name}: a whole number >= 1, got ${arg}`);
  return v;
}

export async function run(args: string[]): Promise<void> {
  const runs = whole(args[0], 10, 'RUNS');
  const workers = whole(args[1], 2, 'WORKERS');
  const evaluations = whole(args[2], 40, 'EVALUATIONS');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'parapush-bench-physics-fit-'));
  try {
    const model = boxScene();
    const world = scaledPhysics(model, { friction: 2 });
    const files: string[] = [];
    for (let i = 0; i < runs; i++) {
      // Each run the probe's pushes, mirrored every other run, with its own noise.
      const controls = PROBE_CONTROLS.map(([vx, vy]) => [vx, i % 2 === 0 ? vy : -vy] as [number, number]);
      files.push(await simulatedLabLog({ dir, world, model, controls, noise: 0.0005, seed: i + 1 }));
    }
    const logged = await Promise.all(files.map(readLoggedPushes));
    const pool = new FinePool({ workers });
    try {
      await pool.warm();
      const t0 = performance.now();
      const result = await fitRun(poolReplay(pool), { scene: model, file: null }, logged, {
        parameters: ['friction', 'table'],
        horizon: 2,
        maxEvaluations: evaluations,
        command: ['npm', 'run', 'bench', '--', 'physics-fit', ...args],
      });
      const seconds = (performance.now() - t0) / 1000;
      const row = {
        runs,
        workers,
        evaluations: result.fit.evaluations,
        'fit s': Number(seconds.toFixed(1)),
        's / evaluation': Number((seconds / result.fit.evaluations).toFixed(2)),
        'friction x': Number(result.fit.point.friction.toFixed(3)),
        'table x': Number(result.fit.point.table.toFixed(3)),
        'held-out p50 before mm': Number(((result.heldOut?.before.position.p50 ?? NaN) * 1000).toFixed(2)),
        'held-out p50 after mm': Number(((result.heldOut?.after.position.p50 ?? NaN) * 1000).toFixed(2)),
      };
      printTable(
        `physics fit: ${runs} simulated runs of ${PROBE_CONTROLS.length} pushes (world: object friction x2), ${workers} workers, friction and table friction`,
        [row],
      );
      writeResult('physics-fit', { fit: { ...row, warnings: result.fit.warnings } });
    } finally {
      await pool.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
