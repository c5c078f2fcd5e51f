/**
 * The safety thread (issue 29, finding 7): motion capture, state estimation and the supervisor
 * run in a worker thread against the virtual lab's Motive on 127.0.0.1. What the thread's
 * supervisor decides comes back as messages; its proposals out (twists, stops) too.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { setupSchema } from '../../src-main/calibration/setup-file';
import { VirtualLab } from '../../src-main/virtual-lab/virtual-lab';
import { programPlaying } from '../../src-main/robot/robot-state';
import { Ur5Connection } from '../../src-main/robot/ur5-connection';
import { SafetyThread } from '../../src-main/run/safety-thread/safety-thread';
import type { Decision } from '../../src-main/safety/supervisor';

const repoRoot = path.resolve(import.meta.dirname, '../..');
const green = { ok: true, checks: [] };

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

async function labAndThread(mocapMaxAge = 1) {
  const lab = await VirtualLab.start({
    scene: path.join(repoRoot, 'test/fixtures/lab-short-scene.json'),
    ports: { rtde: 0, dashboard: 0, secondary: 0, realtime: 0, gripper: 0, natnetCommand: 0, natnetData: 0 },
    mocap: { multicast: false },
  });
  cleanup.push(() => lab.stop());
  const thread = await SafetyThread.start({
    natnet: { serverAddress: '127.0.0.1', localAddress: '127.0.0.1', commandPort: lab.ports.natnetCommand },
    scene: lab.scene,
    setup: setupSchema.parse(lab.setup),
    // The generous staleness limit keeps a loaded test machine from stopping these runs; the
    // freeze test below shows the limit is enforced.
    supervisor: { maxSpeed: 0.05, mocapMaxAge, robotStateMaxAge: 1 },
    tickMs: 5,
  });
  cleanup.push(() => thread.close());
  // The robot link stays on the main thread: its states are forwarded, as a run forwards them.
  const robot = await Ur5Connection.connect({
    host: '127.0.0.1',
    rtdePort: lab.ports.rtde,
    scriptPort: lab.ports.secondary,
  });
  cleanup.push(async () => {
    robot.stop();
    await robot.disconnect();
  });
  robot.on('state', (s) => thread.robotState(s));
  // Armed only once the control program plays, as pre-flight requires.
  await robot.waitForState(programPlaying);
  const decisions: Decision[] = [];
  thread.on('decision', (d) => decisions.push(d));
  return { lab, thread, decisions };
}

/** The first frame that shows every bound body tracked and fresh. */
const trackedPoses = (thread: SafetyThread): Promise<{ ok: boolean; frameNumber: number }> =>
  new Promise((resolve) => {
    const on = (p: { ok: boolean; frameNumber: number }) => {
      if (!p.ok) return;
      thread.off('poses', on);
      resolve(p);
    };
    thread.on('poses', on);
  });

const next = <T>(thread: SafetyThread, event: 'poses' | 'twist' | 'stop'): Promise<T> =>
  new Promise((resolve) => thread.once(event, (v: unknown) => resolve(v as T)));

function stopped(thread: SafetyThread, decisions: Decision[]): Promise<Extract<Decision, { kind: 'stop' }>> {
  return new Promise((resolve) => {
    const check = (d: Decision) => {
      if (d.kind !== 'stop') return;
      thread.off('decision', check);
      resolve(d);
    };
    const earlier = decisions.find((d) => d.kind === 'stop');
    if (earlier?.kind === 'stop') return resolve(earlier);
    thread.on('decision', check);
  });
}

describe('safety thread', () => {
  it('receives motion capture, arms, passes a good proposal to the robot and refuses a bad one', async () => {
    const { thread, decisions } = await labAndThread();
    const poses = await trackedPoses(thread);
    expect(poses.frameNumber).toBeGreaterThan(0);
    expect(await thread.arm(green)).toBe(true);
    thread.startRun();
    await new Promise<void>((r) => thread.on('decision', (d) => d.kind === 'run-started' && r()));
    expect(thread.state).toBe('running');

    const twist = next<{ vx: number; vy: number; acceleration: number }>(thread, 'twist');
    expect(thread.command(0.01, 0)).toBe(true);
    const t = await twist;
    expect(Math.hypot(t.vx, t.vy)).toBeCloseTo(0.01, 9);

    const stop = next<{ acceleration: number }>(thread, 'stop');
    thread.command(Number.NaN, 0);
    const d = await stopped(thread, decisions);
    expect(d.reason.code).toBe('speed-limit');
    expect((await stop).acceleration).toBeGreaterThan(0);
    expect(thread.state).toBe('stopped');
    expect(thread.command(0.01, 0)).toBe(false);

    const { ticks: stats, frameGaps } = await thread.tickStats();
    expect(frameGaps.ticks).toBeGreaterThan(0);
    expect(frameGaps.p50).toBeGreaterThan(0);
    expect(stats.ticks).toBeGreaterThan(0);
    expect(stats.p50).toBeGreaterThanOrEqual(0);
    expect(stats.p50).toBeLessThanOrEqual(stats.p99);
    expect(stats.p99).toBeLessThanOrEqual(stats.max);
    expect(Number.isFinite(stats.max)).toBe(true);
  });

  it('stops on motion capture that freezes, naming it', async () => {
    const { lab, thread, decisions } = await labAndThread(0.1);
    await trackedPoses(thread);
    expect(await thread.arm(green)).toBe(true);
    thread.startRun();
    lab.natnet.setFaults({ freeze: 'frame' });
    const d = await stopped(thread, decisions);
    expect(['mocap-frozen', 'mocap-stale']).toContain(d.reason.code);
  });

  it('stops an active run on a message that is not a safety message', async () => {
    const { thread, decisions } = await labAndThread();
    expect(await thread.arm(green)).toBe(true);
    (thread as unknown as { send(m: unknown): void }).send({ type: 'command', vx: 0.01 });
    const d = await stopped(thread, decisions);
    expect(d.reason.code).toBe('run-error');
    expect(d.message).toMatch(/malformed message to the safety thread/);
  });
});
