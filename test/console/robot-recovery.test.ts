/**
 * Recovery from a protective stop through the console API (issue 16), on the in-process virtual
 * lab wired as the console wires it, with a protective stop injected in the virtual UR controller:
 * `robot.recover` is refused without the operator's confirmation, while a run is in progress and
 * when there is no protective stop; with the confirmation the controller's safety mode returns to
 * NORMAL and the control program plays again, the console's connections and pre-flight checklist
 * say so, and the next run's checks are green. Then the same after a stop in the middle of a dry run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RobotRecovery } from '../../src-main/console/robot-recovery';
import { VirtualLabConnection } from '../../src-main/lab-link/virtual-lab-connection';
import { ProgramState } from '../../src-main/robot/registers';
import { SafetyMode } from '../../src-main/robot/rtde/robot-state-codes';
import { ConsoleOnLab, fastDryRun } from '../helpers/console-on-lab';

/** Small plans on the analytical coarse model; dry runs go on until they are stopped. */
const fast = fastDryRun(40);

// The controller refuses the unlock for 0.5 s after the stop (a real UR: 5 s).
const session = new VirtualLabConnection({ unlockDelay: 0.5, inProcess: true });
// Real runs go to the same virtual lab: they wait for the arm command, so a run is in progress
// while nothing moves.
const consoleOnLab = new ConsoleOnLab({ virtualLab: session, realLab: session, recovery: true });
const { controller, core, events, command, lastRun, until } = consoleOnLab;

// Loading a scene connects nothing: the lab opens with the first run.
beforeAll(async () => {
  await command({ type: 'scene.load', file: 'isrr-obstacle.json' });
  await command({ type: 'settings.set', settings: fast });
});

afterAll(async () => {
  await core.handle({ type: 'run.abort', source: 'remote' });
  await until('the run to end', () => !controller.runInProgress());
  await consoleOnLab.dispose();
  await session.close();
});

const safetyCheck = () => core.snapshot().preflight?.checks.find((c) => c.id === 'safety-mode');
const ur5Detail = () => core.snapshot().connections.find((c) => c.id === 'ur5')?.detail ?? '';

describe('robot.recover: recovery from a protective stop through the console', () => {
  it('is refused with no lab connected, and with no confirmation flag at all (malformed)', async () => {
    expect(await core.handle({ type: 'robot.recover', confirm: true })).toEqual({
      ok: false,
      error: expect.stringMatching(/^not connected to the virtual lab.*no robot to recover/),
    });
    expect(await core.handle({ type: 'robot.recover' })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/malformed command: confirm/),
    });
  });

  it('refuses during a run and without confirmation; with it the robot leaves the protective stop', async () => {
    // A real run (the virtual lab standing in for the configured lab) waits for the arm command
    // after green checks: it owns the robot, and nothing moves.
    await command({ type: 'run.start', mode: 'real' });
    await until('the arm prompt', () => lastRun()?.awaitingArm);
    const ur = session.lab()!.ur.controller;
    ur.injectProtectiveStop();
    await until('the protective stop on the checklist', () => safetyCheck()?.ok === false);

    // A run owns the robot: refused, confirmed or not, and the run goes on.
    for (const confirm of [true, false]) {
      expect(await core.handle({ type: 'robot.recover', confirm })).toEqual({
        ok: false,
        error: 'the robot cannot be recovered while a run is starting: abort the run first',
      });
    }
    expect(lastRun()).toMatchObject({ phase: 'starting', mode: 'real', armed: false });
    await command({ type: 'run.abort', source: 'button' });
    await until('the run to end', () => lastRun()?.phase === 'aborted' && !controller.runInProgress());

    // The console shows the protective stop: the checklist's safety check and the UR5 link.
    expect(safetyCheck()?.reason).toBe('safety mode PROTECTIVE_STOP');
    expect(ur5Detail()).toMatch(/safety PROTECTIVE_STOP/);

    // Without the operator's confirmation nothing is done, even once the unlock is allowed.
    await new Promise((r) => setTimeout(r, 600));
    expect(await core.handle({ type: 'robot.recover', confirm: false })).toEqual({
      ok: false,
      error:
        'recovery from a protective stop needs the operator to confirm it: check that the workspace is clear, then confirm',
    });
    expect(ur.safetyMode).toBe(SafetyMode.PROTECTIVE_STOP);

    // Confirmed: unlocked and the program sent again. No run may start while that is under way.
    const recovering = core.handle({ type: 'robot.recover', confirm: true });
    expect(await core.handle({ type: 'run.start', mode: 'dry' })).toEqual({
      ok: false,
      error: expect.stringMatching(/being recovered from a protective stop/),
    });
    expect(await recovering).toEqual({
      ok: true,
      result: {
        message: expect.stringMatching(/^Protective stop unlocked and the control program restarted/),
        safetyMode: 'NORMAL',
        runtimeState: 'PLAYING',
      },
    });
    expect(ur.safetyMode).toBe(SafetyMode.NORMAL);
    expect(ur.runtime).toBe('PLAYING');
    // The restarted program holds still until a run arms it.
    expect([ProgramState.WAIT_REARM, ProgramState.ARMED]).toContain(ur.programState);
    expect(ur.arm.speed).toBe(0);
    // The console state says so: the checklist's safety check is green, the UR5 link NORMAL.
    await until('the safety check green', () => safetyCheck()?.ok === true);
    expect(safetyCheck()?.reason).toBe('safety mode NORMAL');
    expect(ur5Detail()).toMatch(/safety NORMAL, program playing/);
    const logs = events.flatMap((e) => (e.type === 'log' ? [`${e.source}: ${e.message}`] : []));
    expect(logs).toContain(
      'operator: Recovery from the protective stop confirmed by the operator (workspace checked clear)',
    );
    expect(logs.some((l) => l.startsWith('robot: Protective stop unlocked'))).toBe(true);
    expect(
      logs.some((l) => l.startsWith('console: robot.recover: recovery from a protective stop needs')),
    ).toBe(true);
    // Recovery arms nothing.
    expect(lastRun()).toMatchObject({ phase: 'aborted', armed: false });

    // Nothing left to recover from: refused with the robot's safety mode.
    expect(await core.handle({ type: 'robot.recover', confirm: true })).toEqual({
      ok: false,
      error: 'there is no protective stop to recover from (safety mode NORMAL)',
    });

    // The recovered robot is ready again: the next run's pre-flight checks are all green.
    events.length = 0;
    await command({ type: 'run.start', mode: 'real' });
    await until('the arm prompt', () => lastRun()?.awaitingArm);
    expect(events.some((e) => e.type === 'preflight' && e.report?.ok === true)).toBe(true);
    await command({ type: 'run.abort', source: 'button' });
    await until('the run to end', () => !controller.runInProgress());
  });

  it('recovers after a protective stop in the middle of a dry run', async () => {
    await command({ type: 'run.start', mode: 'dry' });
    await until('a planner step', () => events.some((e) => e.type === 'planner-step'));
    session.lab()!.ur.controller.injectProtectiveStop();
    await until('the run to end', () => lastRun()?.phase === 'failed' && !controller.runInProgress());
    // (test/virtual-lab/supervised-run.test.ts pins the stop's reason; here only the recovery matters.)
    expect(lastRun()).toMatchObject({ safety: 'stopped', armed: false });
    await until('the protective stop on the checklist', () => safetyCheck()?.ok === false);
    expect(await command({ type: 'robot.recover', confirm: true })).toMatchObject({ safetyMode: 'NORMAL' });
    expect(session.lab()!.ur.controller.safetyMode).toBe(SafetyMode.NORMAL);
  });

  it('is refused while an ended run is still winding down (the lab is still its)', async () => {
    const recovery = new RobotRecovery({
      session: () => controller.currentConnection(),
      runInProgress: () => true,
    });
    await expect(recovery.recover(true)).rejects.toThrow(/while a run is in progress/);
    expect(recovery.inProgress).toBe(false);
  });
});
