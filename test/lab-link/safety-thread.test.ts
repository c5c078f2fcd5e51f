/**
 * The safety thread (issue 29, finding 7): the lab's RTDE link, its NatNet client and each run's
 * supervisor run in a worker thread; the main thread mirrors robot states and frames and reaches
 * the arm only through the thread's supervisor. Against the virtual lab on 127.0.0.1.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { monotonicSeconds } from '../../src-main/common/clock';
import { describe, expect, it } from 'vitest';
import { LabLink, loopbackLabAddress } from '../../src-main/lab-link/lab-link';
import type { SupervisorMirror } from '../../src-main/lab-link/safety-thread/supervisor-mirror';
import { CommandCode, INPUT_NAMES } from '../../src-main/robot/registers';
import { programPlaying } from '../../src-main/robot/robot-state';
import type { Decision } from '../../src-main/safety/supervisor';
import { startLabProcess } from '../helpers/lab-process';
import { labsPerTest } from '../helpers/virtual-lab';

const repoRoot = path.resolve(import.meta.dirname, '../..');
const green = { ok: true, checks: [] };

const labs = labsPerTest();

async function until(predicate: () => boolean, seconds = 5): Promise<boolean> {
  const end = performance.now() + seconds * 1000;
  while (!predicate() && performance.now() < end) await new Promise((r) => setTimeout(r, 10));
  return predicate();
}

/** The lab (in this process) and a link, its robot program playing and every body tracked. */
async function labAndLink() {
  const env = await labs.labAndLink();
  await env.link.robot.waitForState(programPlaying, 5);
  expect(await until(() => env.link.poses()?.ok === true)).toBe(true);
  return env;
}

/** A run's supervisor with its decisions collected. */
function supervise(link: LabLink, config = {}): { sup: SupervisorMirror; decisions: Decision[] } {
  const sup = link.safety.supervise(link.scene, config);
  const decisions: Decision[] = [];
  sup.on('decision', (d) => decisions.push(d));
  return { sup, decisions };
}

function stopped(sup: SupervisorMirror, decisions: Decision[]): Promise<Extract<Decision, { kind: 'stop' }>> {
  return new Promise((resolve) => {
    const earlier = decisions.find((d) => d.kind === 'stop');
    if (earlier?.kind === 'stop') return resolve(earlier);
    const check = (d: Decision): void => {
      if (d.kind !== 'stop') return;
      sup.off('decision', check);
      resolve(d);
    };
    sup.on('decision', check);
  });
}

describe('safety thread', () => {
  it('mirrors the robot and motion capture, and sends a good proposal to the robot and refuses a bad one', async () => {
    const { lab, link } = await labAndLink();
    // The mirrors: robot states on this thread's clock, frames as the thread received them.
    const state = await link.robot.waitForState(() => true);
    expect(monotonicSeconds() - state.receivedAt).toBeGreaterThanOrEqual(0);
    expect(monotonicSeconds() - state.receivedAt).toBeLessThan(1);
    expect(link.natnet.getStats().frames).toBeGreaterThanOrEqual(0);
    const twists: number[] = [];
    lab.ur.rtde.on('input', (w) => {
      if (w.values[w.names.indexOf(INPUT_NAMES.command)] === CommandCode.SPEED) twists.push(w.receivedAt);
    });

    const { sup, decisions } = supervise(link);
    const sent: { kind: string; vx: number; vy: number }[] = [];
    sup.on('command', (c) => sent.push(c));
    expect(await sup.arm(green)).toBe(true);
    sup.startRun();
    expect(sup.command(0.01, 0)).toBe(true);
    expect(await until(() => twists.length > 0)).toBe(true);
    const twist = sent.find((c) => c.kind === 'twist')!;
    expect(Math.hypot(twist.vx, twist.vy)).toBeCloseTo(0.01, 9);

    sup.command(Number.NaN, 0);
    const d = await stopped(sup, decisions);
    expect(d.reason.code).toBe('speed-limit');
    expect(await until(() => sent.at(-1)?.kind === 'stop')).toBe(true);
    expect(sup.state).toBe('stopped');
    expect(sup.command(0.01, 0)).toBe(false);

    const { ticks, frameGaps } = await link.safety.tickStats();
    expect(frameGaps.ticks).toBeGreaterThan(0);
    expect(frameGaps.p50).toBeGreaterThan(0);
    expect(ticks.ticks).toBeGreaterThan(0);
    expect(ticks.p50).toBeLessThanOrEqual(ticks.p99);
    expect(ticks.p99).toBeLessThanOrEqual(ticks.max);
    expect(Number.isFinite(ticks.max)).toBe(true);
  });

  it('stops on motion capture that freezes, naming it', async () => {
    const { lab, link } = await labAndLink();
    const { sup, decisions } = supervise(link, { mocapMaxAge: 0.1 });
    expect(await sup.arm(green)).toBe(true);
    sup.startRun();
    lab.natnet.setFaults({ freeze: 'frame' });
    const d = await stopped(sup, decisions);
    expect(['mocap-frozen', 'mocap-stale']).toContain(d.reason.code);
  });

  it('stops an active run on a message that is not a safety message', async () => {
    const { link } = await labAndLink();
    const { sup, decisions } = supervise(link, { mocapMaxAge: 1, robotStateMaxAge: 1 });
    expect(await sup.arm(green)).toBe(true);
    (link.safety as unknown as { send(m: unknown): void }).send({ type: 'command', vx: 0.01 });
    const d = await stopped(sup, decisions);
    expect(d.reason.code).toBe('run-error');
    expect(d.message).toMatch(/malformed message to the safety thread/);
  });

  it('stops the run, naming the thread, when the safety thread ends', async () => {
    const { link } = await labAndLink();
    const { sup, decisions } = supervise(link, { mocapMaxAge: 1, robotStateMaxAge: 1 });
    expect(await sup.arm(green)).toBe(true);
    sup.startRun();
    await (link.safety as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
    const d = await stopped(sup, decisions);
    expect(d.reason.code).toBe('safety-thread');
    expect(d.message).toMatch(/^Safety thread failed: the safety thread exited/);
    expect(sup.state).toBe('stopped');
    expect(link.robot.linkUp).toBe(false);
    expect(sup.command(0.01, 0)).toBe(false);
    // A later run cannot arm on a thread that has gone.
    const next = link.safety.supervise(link.scene);
    expect(await next.arm(green)).toBe(false);
  });

  it('keeps an armed run going while the main thread stalls for a second (the lab in its own process)', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'safety-thread-'));
    labs.closeAfter(() => rmSync(dir, { recursive: true, force: true }));
    const lab = await startLabProcess(path.join(repoRoot, 'test/fixtures/lab-short-scene.json'), dir);
    labs.closeAfter(lab.stop);
    const link = await LabLink.connect(loopbackLabAddress(lab.ports), lab.scene, lab.setup);
    labs.closeAfter(() => link.close());
    await link.robot.waitForState(programPlaying, 5);
    expect(await until(() => link.poses()?.ok === true)).toBe(true);
    // Three times the default staleness limits: slack for a loaded test machine, and still a
    // third of the stall below, which a supervisor on this thread would not survive.
    const { sup, decisions } = supervise(link, { mocapMaxAge: 0.3, robotStateMaxAge: 0.3 });
    expect(await sup.arm(green)).toBe(true);
    sup.startRun();
    await link.safety.tickStats(true);
    const end = performance.now() + 1000;
    while (performance.now() < end) {
      // Busy: no timer, message or socket on this thread runs (planning at its worst).
    }
    const stats = await link.safety.tickStats();
    expect(decisions.filter((d) => d.kind === 'stop')).toEqual([]);
    expect(sup.state).toBe('running');
    expect(link.safety.alive).toBe(true);
    // The thread's tick ran on through the stall (a timer on this thread would have run once).
    expect(stats.ticks.ticks).toBeGreaterThan(10);
  });
});
