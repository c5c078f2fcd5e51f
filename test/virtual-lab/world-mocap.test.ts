/**
 * The world's motion capture (virtual-lab/world-physics.ts `world.mocap`): late by the set time,
 * with frames stamped by their true exposure, and as noisy as set.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadSceneFile } from '../../src-main/common/config-files';
import { RobotAdapter } from '../../src-main/robot/adapter';
import { LabWorld } from '../../src-main/virtual-lab/lab-world';
import { labsPerTest } from '../helpers/virtual-lab';
import { repoRoot } from '../helpers/scenes';

const labs = labsPerTest();
const scene = loadSceneFile(path.join(repoRoot, 'test/fixtures/lab-short-scene.json'));
const worlds: LabWorld[] = [];
afterEach(() => worlds.splice(0).forEach((w) => w.dispose()));

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * The pusher's true x less its x as the cameras show it, averaged over a second of moving it along
 * +x at about `speed` m/s (clear of the object: 15 cm to its side), and its measured speed.
 */
async function cameraLag(latency: number, speed: number): Promise<{ lag: number; speed: number }> {
  const adapter = new RobotAdapter({
    calibration: { yaw: 0, offset: [0, -0.45, 0] },
    pusherOffset: [0, 0, 0.15],
  });
  const world = await LabWorld.create(scene, adapter, { noiseVariance: 0, seed: 1, mocapLatency: latency });
  worlds.push(world);
  const down = [0, Math.PI, 0];
  const start = { x: scene.pusher!.position.x, y: 0.15, z: 0.004 };
  const toolAt = (t: number): number[] => [
    ...adapter.toolPosition({ ...start, x: start.x + speed * t }, down),
    ...down,
  ];
  const velocity = (t: number): number[] =>
    toolAt(t + 1e-3)
      .slice(0, 3)
      .map((v, i) => (v - toolAt(t)[i]!) / 1e-3);
  world.setTool({ pose: toolAt(0), velocity: [0, 0, 0] });
  world.start();
  const t0 = performance.now();
  const drive = setInterval(() => {
    const t = (performance.now() - t0) / 1000;
    world.setTool({ pose: toolAt(t), velocity: velocity(t) });
  }, 2);
  const lags: number[] = [];
  const path: { t: number; x: number }[] = [];
  try {
    await sleep(300);
    for (let i = 0; i < 50; i++) {
      await sleep(20);
      const x = world.truePoses().get('pusher')!.x;
      path.push({ t: performance.now() / 1000, x });
      lags.push(x - world.poses().get('pusher')!.x);
    }
  } finally {
    clearInterval(drive);
  }
  const first = path[0]!;
  const last = path[path.length - 1]!;
  return {
    lag: lags.reduce((a, b) => a + b, 0) / lags.length,
    speed: (last.x - first.x) / (last.t - first.t),
  };
}

describe("the world's motion capture", () => {
  it('shows the table as it was `latency` s before: a moving pusher trails by speed x latency', async () => {
    const late = await cameraLag(0.05, 0.05);
    expect(late.speed).toBeGreaterThan(0.04);
    expect(late.lag / late.speed).toBeGreaterThan(0.05 * 0.9);
    expect(late.lag / late.speed).toBeLessThan(0.05 * 1.1);
    expect(Math.abs((await cameraLag(0, 0.05)).lag)).toBeLessThan(1e-5);
  });

  it('stamps each frame with its true exposure, the latency earlier, and streams positions with the set noise', async () => {
    const { lab, link } = await labs.labAndLink({
      world: { noiseVariance: 0, seed: 1, mocap: { latency: 0.01, positionNoise: 0.0005 } },
    });
    expect(lab.natnet.exposureLatency).toBeCloseTo(0.014, 6);
    const xs: number[] = [];
    const off = link.natnet.on('frame', (_f, snapshot) => {
      const body = snapshot.rigidBodies.find((b) => b.name === 'object');
      if (body) xs.push(body.position[0]);
    });
    while (xs.length < 300) await sleep(50);
    off();
    const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
    const std = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (xs.length - 1));
    expect(std).toBeGreaterThan(0.0005 * 0.85);
    expect(std).toBeLessThan(0.0005 * 1.15);
  }, 30_000);
});
