/**
 * Fault injection in the virtual lab: the real clients, the supervisor and the MPC loop against
 * the virtual UR, gripper and NatNet server over loopback.
 */
import { describe, expect, it } from 'vitest';
import { monotonicSeconds } from '../../src-main/common/clock';
import { spawnNodeWorker } from '../../src-main/parareal/worker-transport';
import { RunOwner } from '../../src-main/run/run-owner';
import { supervisedRun } from '../../src-main/run/supervised-run';
import { recoverFromProtectiveStop, robotRecoveryPorts } from '../../src-main/safety/recovery';
import type { Decision } from '../../src-main/safety/supervisor';
import { labsPerTest, quickLabTask, runOnLab, speedCommands, stopCommandTimes } from '../helpers/virtual-lab';

const task = quickLabTask();

const labs = labsPerTest();

describe('supervised runs in the virtual lab', () => {
  it('completes a task through the real protocols after green pre-flight checks', async () => {
    const env = await labs.labAndLink();
    const result = await runOnLab(env, task);
    expect(result.preflight.ok).toBe(true);
    expect(result.end, result.reason).toEqual({ cause: 'task', result: 'success' });
    expect(result.actions).toBeGreaterThan(0);
    // The slider really moved in the world (the lab's physics, not the planner's).
    const world = env.lab.world.snapshot();
    expect(env.lab.world.layout.sliderPose(world, 0).x).toBeGreaterThan(-0.06);
  });

  it("runs a second run on the owner's warm fine workers: no worker starts for it", async () => {
    const env = await labs.labAndLink();
    let spawned = 0;
    const owner = new RunOwner({
      workers: 1,
      spawn: () => {
        spawned++;
        return spawnNodeWorker();
      },
    });
    try {
      for (const n of [1, 2]) {
        // Each run from the scene's start, as a console's dry run begins.
        await env.lab.placeObjects();
        owner.begin('real');
        // How the run ends is the lab's (on a loaded machine motion capture may go stale): what
        // counts here is that the run registered its scene with the owner's workers.
        await supervisedRun({ link: env.link, task, model: { kind: 'fine' }, owner });
        owner.release();
        expect(spawned, `workers started by run ${n}`).toBe(1);
      }
      expect(owner.finePool().replacements).toBe(0);
    } finally {
      await owner.close();
    }
  });

  it('refuses to arm (nothing moves) when the pusher is not held', async () => {
    const env = await labs.labAndLink();
    env.lab.gripper.dropPusher();
    const twists = speedCommands((f) => env.lab.ur.rtde.on('input', f));
    const result = await runOnLab(env, task);
    expect(result.end).toEqual({ cause: 'not-armed' });
    expect(result.reason).toMatch(/Pusher held/);
    expect(twists).toHaveLength(0);
  });

  it('stops within 100 ms plus one cycle when motion capture drops out', async () => {
    const env = await labs.labAndLink();
    const stops = stopCommandTimes(env.lab.ur);
    let cutAt = 0;
    let cut = false;
    // Send time of the last frame that got through: the staleness clock starts on its arrival.
    let lastDeliveredAt = 0;
    env.lab.natnet.onFrameSent(() => {
      if (cutAt === 0) lastDeliveredAt = monotonicSeconds();
    });
    const result = await runOnLab(env, task, {
      onStep: () => {
        if (cut) return;
        cut = true;
        // While the first control executes, every frame from now on is dropped.
        setTimeout(() => {
          cutAt = monotonicSeconds();
          env.lab.natnet.setFaults({ dropRate: 1 });
        }, 200);
      },
    });
    expect(result.end, result.reason).toEqual({ cause: 'safety-stop' });
    expect(result.supervisor.stopReason?.code).toBe('mocap-stale');
    // The supervisor's stop goes out on the call stack that decided it (keep-alive stops of the
    // idle connection are on the wire too, so look from the decision on).
    const decidedAt = result.supervisor.stoppedAt!;
    const stopAt = stops.find((t) => t >= decidedAt)!;
    expect(stopAt - decidedAt).toBeLessThan(0.005);
    // Never before 100 ms without a frame: timed from the last frame sent (it arrived later still).
    const silence = stopAt - lastDeliveredAt;
    expect(silence, `stop ${(silence * 1000).toFixed(1)} ms after the last frame`).toBeGreaterThanOrEqual(
      0.1,
    );
    // Limit from the cut: 100 ms of staleness + one 120 Hz frame + one 5 ms watchdog tick; the
    // upper bound leaves scheduling slack for a loaded two-core machine (the robot bench measures
    // the distribution).
    const latency = stopAt - cutAt;
    expect(latency, `stop ${(latency * 1000).toFixed(1)} ms after the cut`).toBeLessThan(
      0.1 + 0.0084 + 0.005 + 0.05,
    );
  });

  it('ends the run on a protective stop with its reason; recovery needs confirmation', async () => {
    const env = await labs.labAndLink();
    let injectedAt: number | undefined;
    const result = await runOnLab(env, task, {
      onStep: () => {
        if (injectedAt !== undefined) return;
        injectedAt = -1;
        setTimeout(() => {
          injectedAt = monotonicSeconds();
          env.lab.ur.controller.injectProtectiveStop();
        }, 150);
      },
    });
    expect(result.end).toEqual({ cause: 'safety-stop' });
    expect(result.reason).toBe('Robot protective stop');
    // The controller stops the arm itself; the supervisor decides on the first state that says so:
    // an RTDE period (8 ms on a CB3) and scheduling slack for a loaded two-core machine (s).
    const decidedAt = result.supervisor.stoppedAt!;
    expect(decidedAt - injectedAt!, 's from the protective stop to the decision').toBeLessThan(0.008 + 0.04);
    expect(decidedAt).toBeGreaterThan(injectedAt!);
    const ports = robotRecoveryPorts(env.link.robot, env.link.dashboard);
    await expect(recoverFromProtectiveStop(result.supervisor, ports, false)).rejects.toThrow(/confirm/);
    expect(env.link.robot.latest?.safetyMode).toBe('PROTECTIVE_STOP');
    await recoverFromProtectiveStop(result.supervisor, ports, true, { unlockDelay: 0.3 });
    expect(env.link.robot.latest?.safetyMode).toBe('NORMAL');
    expect(result.supervisor.state).toBe('disarmed');
  });

  it('ends the run with its reason when the robot link drops mid-run, whenever the planner next commands', async () => {
    const env = await labs.labAndLink();
    let cut = false;
    const result = await runOnLab(env, task, {
      onStep: () => {
        if (cut) return;
        cut = true;
        // A cable pulled while the first control executes: the next command finds no link.
        setTimeout(() => env.lab.ur.rtde.dropClients(), 150);
      },
    });
    expect(result.end, result.reason).toEqual({ cause: 'safety-stop' });
    expect(result.supervisor.stopReason?.code).toBe('robot-link-lost');
  });

  it('stops the arm naming the error, not an abort, when the run itself fails while armed', async () => {
    const env = await labs.labAndLink();
    const decisions: Decision[] = [];
    const run = runOnLab(env, task, {
      onDecision: (d) => decisions.push(d),
      onStep: () => {
        throw new Error('step report crashed');
      },
    });
    await expect(run).rejects.toThrow('step report crashed');
    const stop = decisions.find((d) => d.kind === 'stop');
    expect(stop).toMatchObject({
      reason: { code: 'run-error', detail: 'step report crashed' },
      message: 'Run failed: step report crashed',
    });
  });

  it('puts a stop on the wire within 10 ms of an abort (p99 over 100 aborts)', async () => {
    const env = await labs.labAndLink();
    const { link, lab } = env;
    await link.robot.waitForState(() => true, 2);
    const stops = stopCommandTimes(lab.ur);
    const latencies: number[] = [];
    for (let i = 0; i < 100; i++) {
      // Each one a run's supervisor in the safety thread; the abort reaches it by message.
      const sup = link.safety.supervise(link.scene, { mocapMaxAge: 1, robotStateMaxAge: 1 });
      expect(await sup.arm({ ok: true, checks: [] })).toBe(true);
      sup.startRun();
      sup.command(i % 2 ? 0.01 : -0.01, 0);
      await new Promise((r) => setTimeout(r, 5));
      const before = stops.length;
      const t0 = monotonicSeconds();
      sup.abort();
      while (stops.length === before) await new Promise((r) => setImmediate(r));
      latencies.push(stops[before]! - t0);
      await sup.settled();
    }
    latencies.sort((a, b) => a - b);
    expect(latencies[98]!).toBeLessThan(0.01);
  });
});
