/**
 * Recovery goes to the robot that stopped (issue 29, finding 10), on two in-process virtual labs
 * wired as the console wires them: one standing in for the real lab, one for the dry runs. After a
 * dry run the console's last lab is the virtual one; a protective stop of the real arm must still
 * be what `robot.recover` unlocks, and the dry-run lab's robot is left alone.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { VirtualLabConnection } from '../../src-main/lab-link/virtual-lab-connection';
import { SafetyMode } from '../../src-main/robot/rtde/robot-state-codes';
import { ConsoleOnLab, fastDryRun } from '../helpers/console-on-lab';

// The controller refuses the unlock for 0.5 s after the stop (a real UR: 5 s).
const virtualLab = new VirtualLabConnection({ unlockDelay: 0.5, inProcess: true });
const realLab = new VirtualLabConnection({ unlockDelay: 0.5, inProcess: true });
const consoleOnLab = new ConsoleOnLab({ virtualLab, realLab, recovery: true });
const { controller, core, events, command, lastRun, until } = consoleOnLab;

afterAll(async () => {
  await core.handle({ type: 'run.abort', source: 'remote' });
  await until('the run to end', () => !controller.runInProgress());
  await consoleOnLab.dispose();
  await Promise.all([virtualLab.close(), realLab.close()]);
});

describe('robot.recover after a dry run', () => {
  it('unlocks the real lab whose robot is in the protective stop, not the dry run lab', async () => {
    await command({ type: 'scene.load', file: 'isrr-obstacle.json' });
    await command({ type: 'settings.set', settings: fastDryRun(40) });
    // A real run connects the real lab; it waits for the arm command, then is aborted.
    await command({ type: 'run.start', mode: 'real' });
    await until('the arm prompt', () => lastRun()?.awaitingArm);
    await command({ type: 'run.abort', source: 'button' });
    await until('the real run to end', () => lastRun()?.phase === 'aborted' && !controller.runInProgress());
    // Then a dry run on the virtual lab: the last run's lab is now the virtual one.
    await command({ type: 'run.start', mode: 'dry' });
    await until('a planner step', () => events.some((e) => e.type === 'planner-step'));
    // How it ends does not matter here (on a loaded machine it may stop by itself first).
    await core.handle({ type: 'run.abort', source: 'button' });
    await until(
      'the dry run to end',
      () =>
        lastRun()?.mode === 'dry' &&
        ['aborted', 'failed', 'finished'].includes(lastRun()!.phase) &&
        !controller.runInProgress(),
    );

    const real = realLab.lab()!.ur.controller;
    const dry = virtualLab.lab()!.ur.controller;
    real.injectProtectiveStop();
    await until('the real robot to report the stop', () =>
      realLab.current()?.robot.latest?.safetyMode === 'PROTECTIVE_STOP' ? true : undefined,
    );
    expect(dry.safetyMode).toBe(SafetyMode.NORMAL);
    // Once the controller allows the unlock.
    await new Promise((r) => setTimeout(r, 600));
    expect(await command({ type: 'robot.recover', confirm: true })).toMatchObject({ safetyMode: 'NORMAL' });
    expect(real.safetyMode).toBe(SafetyMode.NORMAL);
    expect(real.runtime).toBe('PLAYING');
    // The dry-run lab's robot was not touched: nothing to recover there.
    expect(dry.safetyMode).toBe(SafetyMode.NORMAL);
  });
});
