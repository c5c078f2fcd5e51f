/**
 * The console's virtual lab runs in a thread of its own: a dry run on it survives a 1 s stall of
 * the main thread (the lab's frames and robot states keep coming, so the safety thread sees no
 * stale data), faults are injected by message, and the lab's thread ending is an error the
 * session reports, after which the next run starts a fresh lab.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Worker } from 'node:worker_threads';
import type { ConsoleEvent } from '#contract/console-api';
import { VirtualLabConnection } from '../../src-main/lab-link/virtual-lab-connection';
import { CommandCode, INPUT_NAMES } from '../../src-main/robot/registers';
import { ConsoleOnLab, fastDryRun } from '../helpers/console-on-lab';

const session = new VirtualLabConnection();
let lab: ConsoleOnLab;

beforeAll(async () => {
  lab = new ConsoleOnLab({ virtualLab: session, realLab: null });
  await lab.command({ type: 'scene.load', file: 'isrr-obstacle.json' });
  // Enough actions that the run is still pushing well after the stall.
  await lab.command({ type: 'settings.set', settings: fastDryRun(50) });
  await session.linkFor(lab.core.snapshot().scene!);
});

afterAll(async () => {
  await lab.dispose();
  await session.close();
});

/** Blocks this (the main) thread for `ms`, as a long planning or recording step would. */
function stallMainThread(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end);
}

describe("the console's virtual lab in its own thread", () => {
  it('keeps a dry run going through a 1 s main-thread stall while armed', async () => {
    expect(session.description).toContain('thread of its own');
    const thread = session.thread()!;
    let speeds = 0;
    const off = thread.onInput((w) => {
      const i = w.names.indexOf(INPUT_NAMES.command);
      if (i >= 0 && w.values[i] === CommandCode.SPEED) speeds++;
    });
    // The stall comes the moment the run reports itself armed, before the first plan is ready:
    // armed, the safety thread watches motion capture and robot states, but with the arm at rest
    // a stalled control loop is no reason to stop (a moving arm's would be: 'loop-stalled').
    let stalled: { planned: boolean } | undefined;
    const unsubscribe = lab.core.subscribe((e) => {
      if (stalled || e.type !== 'run' || !e.status.armed) return;
      stalled = { planned: lab.events.some((p) => p.type === 'planner-step') };
      stallMainThread(1000);
    });
    await lab.command({ type: 'run.start', mode: 'dry' });
    await lab.until('the stall', () => stalled, 60_000);
    unsubscribe();
    expect(stalled!.planned).toBe(false);

    // After the stall the run goes on: it plans and pushes, and nothing stopped it.
    await lab.until('a planner step after the stall', () =>
      lab.events.find((e: ConsoleEvent) => e.type === 'planner-step'),
    );
    await lab.until('speed commands after the stall', () => speeds > 0);
    expect(lab.lastRun()).toMatchObject({ phase: 'running', armed: true, safety: 'safe' });
    off();
    await lab.command({ type: 'run.abort', source: 'remote' });
    await lab.until('the run to end', () => lab.controller.runningWorkers() === 0);
  }, 120_000);

  it("injects a protective stop by message, and the robot's own state says so", async () => {
    const link = session.current()!;
    expect(link.robot.latest?.safetyMode).toBe('NORMAL');
    await session.injectProtectiveStop();
    const state = await link.robot.waitForState((s) => s.safetyMode === 'PROTECTIVE_STOP');
    expect(state.safetyMode).toBe('PROTECTIVE_STOP');
  });

  it("reports the lab thread's end and starts a fresh lab for the next link", async () => {
    const thread = await lab.until('the lab thread', () => session.thread() ?? undefined);
    const link = session.current();
    const errors: Error[] = [];
    const off = session.onError((e) => errors.push(e));
    // The thread dies under the lab (as a crash would end it).
    await (Reflect.get(thread, 'worker') as Worker).terminate();
    await lab.until('the error', () => errors[0]);
    expect(errors[0]!.message).toMatch(/virtual lab thread ended/);
    expect(thread.alive).toBe(false);
    await expect(thread.placeObjects()).rejects.toThrow(/virtual lab thread ended/);
    await lab.until('the dead lab dropped', () => session.current() === null);
    off();
    const fresh = await session.linkFor(lab.core.snapshot().scene!);
    expect(fresh).not.toBe(link);
    expect(session.thread()).not.toBe(thread);
    expect(session.thread()?.alive).toBe(true);
  }, 60_000);
});
