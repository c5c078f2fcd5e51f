// @vitest-environment jsdom
/**
 * The Setup view's recovery from a protective stop (issue 16): offered only while the pre-flight
 * checklist reports the robot in a protective stop, sent only after the operator's confirmation
 * that the workspace is clear, off while a run is in progress, and the core's answer shown.
 */
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ConsoleCommandError,
  type CommandResult,
  type ConsoleCommand,
  type RunStatus,
} from '#contract/console-api';
import { inProtectiveStop } from '../../src-renderer/src/lib/protective-stop';
import SetupView from '../../src-renderer/src/views/SetupView.svelte';
import { fakeClient } from '../helpers/fake-client';
import { referenceScene } from '../helpers/scenes';
import { idleCalibrationWizard, setupChecklist } from '../helpers/setup-view';

afterEach(cleanup);

const scene = referenceScene('isrr-obstacle');

/** The checklist as the core computes it, for a robot in `safetyMode` (its program stopped unless NORMAL). */
const checklist = (safetyMode: string) =>
  setupChecklist({ scene, safetyMode, programPlaying: safetyMode === 'NORMAL', pusherHeld: true });

const run = (phase: RunStatus['phase'] = 'failed'): RunStatus => ({
  phase,
  mode: 'dry',
  reason: phase === 'failed' ? 'Robot protective stop' : null,
  startedAt: 1,
  elapsed: 3,
  safety: 'stopped',
  armed: false,
});

const recovered: CommandResult<'robot.recover'> = {
  message: 'Protective stop unlocked and the control program restarted (safety NORMAL, runtime PLAYING)',
  safetyMode: 'NORMAL',
  runtimeState: 'PLAYING',
};

/** Answers like the core: the calibration wizard's state, and robot.recover (or its refusal) once released. */
function fakeCore(refusal?: string) {
  let release: () => void = () => {};
  const { client, sent } = fakeClient(async (command) => {
    if (command.type !== 'robot.recover') return idleCalibrationWizard();
    await new Promise<void>((r) => (release = r));
    if (refusal) throw new ConsoleCommandError(refusal);
    return recovered;
  });
  return { client, sent, release: () => release() };
}

const recoverButton = () => screen.queryByRole('button', { name: 'Recover from protective stop' });
const recoveries = (sent: ConsoleCommand[]) => sent.filter((c) => c.type === 'robot.recover');

describe('Setup view: recovery from a protective stop', () => {
  it('reads the protective stop from the checklist only', () => {
    expect(inProtectiveStop(checklist('PROTECTIVE_STOP'))).toBe(true);
    expect(inProtectiveStop(checklist('NORMAL'))).toBe(false);
    expect(inProtectiveStop(checklist('SAFEGUARD_STOP'))).toBe(false);
    expect(inProtectiveStop(checklist('ROBOT_EMERGENCY_STOP'))).toBe(false);
    expect(inProtectiveStop(null)).toBe(false);
  });

  it('is not offered without a protective stop', () => {
    const { client } = fakeCore();
    const base = { client, scene, connections: [], run: run('idle') };
    render(SetupView, { ...base, preflight: checklist('NORMAL') });
    expect(recoverButton()).toBeNull();
    cleanup();
    render(SetupView, { ...base, preflight: null });
    expect(recoverButton()).toBeNull();
  });

  it('asks the operator to check the workspace first, sends only on confirmation, shows the result', async () => {
    const { client, sent, release } = fakeCore();
    const props = { client, scene, connections: [], run: run(), preflight: checklist('PROTECTIVE_STOP') };
    const { rerender } = render(SetupView, props);
    await fireEvent.click(recoverButton()!);
    const confirm = screen.getByRole('group', { name: 'Confirm recovery' });
    expect(confirm.textContent).toMatch(/First check that the workspace is clear/);
    expect(recoveries(sent)).toHaveLength(0);

    // Cancel: back to the button, nothing sent.
    await fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('group', { name: 'Confirm recovery' })).toBeNull();
    expect(recoveries(sent)).toHaveLength(0);

    await fireEvent.click(recoverButton()!);
    await fireEvent.click(screen.getByRole('button', { name: 'Workspace is clear: recover' }));
    expect(recoveries(sent)).toEqual([{ type: 'robot.recover', confirm: true }]);
    await waitFor(() => expect(screen.getByRole('status').textContent).toMatch(/Recovering/));
    expect(recoverButton()).toBeNull();
    release();
    await waitFor(() => expect(screen.getByTestId('recovery-result').textContent).toBe(recovered.message));

    // The checklist turns green: the control goes, the result stays.
    await rerender({ ...props, preflight: checklist('NORMAL') });
    expect(recoverButton()).toBeNull();
    expect(screen.getByTestId('recovery-result').textContent).toBe(recovered.message);
  });

  it("shows the core's refusal", async () => {
    const refusal = 'there is no protective stop to recover from (safety mode NORMAL)';
    const { client, release } = fakeCore(refusal);
    render(SetupView, {
      client,
      scene,
      connections: [],
      run: run(),
      preflight: checklist('PROTECTIVE_STOP'),
    });
    await fireEvent.click(recoverButton()!);
    await fireEvent.click(screen.getByRole('button', { name: 'Workspace is clear: recover' }));
    release();
    await waitFor(() => expect(screen.getByRole('alert').textContent).toBe(`Not recovered: ${refusal}`));
  });

  it('is off while a run is in progress', () => {
    const { client } = fakeCore();
    render(SetupView, {
      client,
      scene,
      connections: [],
      run: run('starting'),
      preflight: checklist('PROTECTIVE_STOP'),
    });
    expect((recoverButton() as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByText(/A run is in progress/)).toBeTruthy();
  });
});
