/**
 * `parapush robot recover` against the virtual UR (issue 16): recoverFromProtectiveStop was
 * reachable from nowhere; now the CLI unlocks a protective stop and restarts the control program,
 * only with the operator's --confirm and only when there is a protective stop.
 */
import { Command } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { registerRobotCommand } from '../../src-main/cli/commands/robot';
import { UsageError } from '../../src-main/cli/errors';
import { VirtualUr } from '../../src-main/virtual-lab/virtual-ur';
import { ProgramState } from '../../src-main/robot/registers';
import { recoverRobotFromProtectiveStop } from '../../src-main/safety/recovery';
import { SafetyMode } from '../../src-main/robot/rtde/robot-state-codes';
import { Ur5Connection } from '../../src-main/robot/ur5-connection';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

/** A virtual UR after a run: its connection closed (the run's process ended), protective stop or not. */
async function robotAfterRun(protectiveStop: boolean): Promise<VirtualUr> {
  // Unlock refused for 0.3 s after the stop, as the real controller refuses for 5 s.
  const ur = await VirtualUr.start({
    ports: { rtde: 0, dashboard: 0, secondary: 0, realtime: 0 },
    frequency: 500,
    unlockDelay: 0.3,
  });
  cleanup.push(() => ur.stop());
  const run = await Ur5Connection.connect({
    host: '127.0.0.1',
    rtdePort: ur.ports.rtde,
    scriptPort: ur.ports.secondary,
  });
  await run.waitForState((s) => s.program.state === 'ARMED');
  if (protectiveStop) ur.controller.injectProtectiveStop();
  await run.disconnect();
  return ur;
}

function recover(ur: VirtualUr, ...extra: string[]): Promise<Command> {
  const program = new Command().exitOverride();
  registerRobotCommand(program);
  const p = ur.ports;
  return program.parseAsync(
    [
      'robot',
      'recover',
      '--robot',
      '127.0.0.1',
      '--rtde-port',
      String(p.rtde),
      '--script-port',
      String(p.secondary),
      '--dashboard-port',
      String(p.dashboard),
      ...extra,
    ],
    { from: 'user' },
  );
}

describe('parapush robot recover', () => {
  it('needs --confirm and leaves the protective stop alone without it', async () => {
    const ur = await robotAfterRun(true);
    await expect(recover(ur)).rejects.toThrow(UsageError);
    await expect(recover(ur)).rejects.toThrow(/inspect the cause.*--confirm/);
    await new Promise((r) => setTimeout(r, 400));
    expect(ur.controller.safetyMode).toBe(SafetyMode.PROTECTIVE_STOP);
  });

  it('unlocks a protective stop and restarts the control program, waiting out the unlock delay', async () => {
    const ur = await robotAfterRun(true);
    const started = performance.now();
    await recover(ur, '--confirm');
    expect(performance.now() - started).toBeGreaterThanOrEqual(300);
    expect(ur.controller.safetyMode).toBe(SafetyMode.NORMAL);
    expect(ur.controller.runtime).toBe('PLAYING');
    // The restarted program waits for a re-arm or holds still: nothing moves until a run arms it.
    expect([ProgramState.WAIT_REARM, ProgramState.ARMED]).toContain(ur.controller.programState);
    expect(ur.controller.arm.speed).toBe(0);
  });

  it('does nothing, and fails, when there is no protective stop', async () => {
    const ur = await robotAfterRun(false);
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      await recover(ur, '--confirm');
      expect(stderr.mock.calls.join('')).toMatch(/safety mode NORMAL[^]*no protective stop to recover from/);
      expect(process.exitCode).toBe(1);
    } finally {
      stderr.mockRestore();
      process.exitCode = 0;
    }
  });

  it('the library refuses too, without a protective stop or a confirmation', async () => {
    const ports = {
      unlockProtectiveStop: vi.fn(async () => undefined),
      waitForRunning: vi.fn(async () => undefined),
      zeroTwist: vi.fn(),
      resendProgram: vi.fn(async () => undefined),
      waitForProgram: vi.fn(async () => undefined),
    };
    await expect(recoverRobotFromProtectiveStop('NORMAL', ports, true)).rejects.toThrow(
      /no protective stop to recover from \(safety mode NORMAL\)/,
    );
    await expect(recoverRobotFromProtectiveStop('PROTECTIVE_STOP', ports, false)).rejects.toThrow(/confirm/);
    expect(ports.unlockProtectiveStop).not.toHaveBeenCalled();
  });
});
