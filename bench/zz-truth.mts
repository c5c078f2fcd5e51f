import { readLoggedPushes } from '../src-main/lab-physics/executed-pushes';
import { multiStepError } from '../src-main/lab-physics/fit';
import { poolReplay } from '../src-main/lab-physics/prediction-error';
import { FinePool } from '../src-main/parareal/fine-pool';
const files = process.argv.slice(2);
const runs = await Promise.all(files.map((f) => readLoggedPushes(f)));
const pool = new FinePool({ workers: 2 });
const replay = poolReplay(pool);
const pts = [
  { mass: 1, friction: 1, table: 1, latency: 0 },
  { mass: 1.6, friction: 1.5, table: 0.75, latency: 0.01 },
  { mass: 1.6, friction: 1.5, table: 0.75, latency: 0 },
  { mass: 1, friction: 1.5, table: 1, latency: 0 },
  { mass: 1, friction: 2.05, table: 0.93, latency: 0 },
];
for (const h of [1, 3]) for (const p of pts) {
  const e = await multiStepError(replay, runs[0]!.scene, runs, p, { horizon: h });
  console.log(h, JSON.stringify(p), (e.position.p50 * 1000).toFixed(2), (e.position.p95 * 1000).toFixed(2), (e.yaw.p95 * 180 / Math.PI).toFixed(2), e.count);
}
await pool.close();
