// @vitest-environment jsdom
/**
 * The jog panel (issue 45, finding 4): off with its reason while a run waits or runs (not enabled
 * and refused after the click); a path the core judges to cross an object asks the operator and
 * jogs only on "Jog anyway"; one it refuses near the table edge says why and moves nothing.
 */
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import { afterEach, describe, expect, it } from 'vitest';
import { idleRunStatus, type ConsoleCommand, type JogCheck, type RunStatus } from '#contract/console-api';
import type { LabView } from '#contract/lab-view';
import JogPanel from '../../src-renderer/src/components/JogPanel.svelte';
import { fakeClient } from '../helpers/fake-client';
import { idleCalibrationWizard } from '../helpers/setup-view';
import { sampleLab } from '../session/sample-messages';

afterEach(cleanup);

const lab: LabView = { ...sampleLab, description: 'virtual lab in this process' };
const jogButtons = () => screen.getAllByRole('button', { name: /^Jog [+−][xy]$/ }) as HTMLButtonElement[];

/** A core that answers every jog check with `check` (and every jog with the wizard's state). */
function core(check: JogCheck) {
  return fakeClient((c: ConsoleCommand) =>
    c.type === 'calibration.jog-check' ? { check } : idleCalibrationWizard(),
  );
}

describe('JogPanel', () => {
  it.each([
    ['starting', /while a run is starting or waits for Arm: the run owns the arm/],
    ['running', /while a run is running: the run owns the arm/],
    ['paused', /while a run is paused: the run owns the arm/],
  ] as const)('is off with the reason while a run is %s', (phase, reason) => {
    const { client, sent } = core({ verdict: 'clear', message: null });
    const run: RunStatus = { ...idleRunStatus, phase, mode: 'real' };
    render(JogPanel, { client, lab, run });
    expect(screen.getByTestId('jog-off').textContent).toMatch(reason);
    for (const b of jogButtons()) {
      expect(b.disabled).toBe(true);
      expect(b.title).toMatch(reason);
    }
    expect((screen.getByLabelText('Jog step (mm)') as HTMLSelectElement).disabled).toBe(true);
    expect(sent).toEqual([]);
  });

  it('is on between runs and off, saying so, without a connected lab', () => {
    const { client } = core({ verdict: 'clear', message: null });
    const view = render(JogPanel, { client, lab, run: { ...idleRunStatus, phase: 'finished' } });
    expect(screen.queryByTestId('jog-off')).toBeNull();
    expect(jogButtons().every((b) => !b.disabled)).toBe(true);
    view.unmount();
    render(JogPanel, { client, lab: { ...lab, connected: false }, run: idleRunStatus });
    expect(screen.getByTestId('jog-off').textContent).toMatch(/Not connected/);
  });

  it('jogs a clear path at once, after the check', async () => {
    const { client, sent } = core({ verdict: 'clear', message: null });
    render(JogPanel, { client, lab, run: idleRunStatus });
    await fireEvent.change(screen.getByLabelText('Jog step (mm)'), { target: { value: '25' } });
    await fireEvent.click(screen.getByRole('button', { name: 'Jog −y' }));
    await waitFor(() => expect(sent).toHaveLength(2));
    expect(sent).toEqual([
      { type: 'calibration.jog-check', dx: 0, dy: -0.025 },
      { type: 'calibration.jog', dx: 0, dy: -0.025 },
    ]);
  });

  it('asks before a path that crosses an object, and jogs only on the confirmation', async () => {
    const message =
      "the jog's path from (-250, 25) to (-200, 25) mm crosses object object: the pusher would push it";
    const { client, sent } = core({ verdict: 'confirm', message });
    render(JogPanel, { client, lab, run: idleRunStatus });
    await fireEvent.click(screen.getByRole('button', { name: 'Jog +x' }));
    const ask = await screen.findByRole('alertdialog', { name: 'Confirm the jog' });
    expect(ask.textContent).toContain(message);
    expect(sent.map((c) => c.type)).toEqual(['calibration.jog-check']);
    // While it asks, no other jog can start.
    expect(jogButtons().every((b) => b.disabled)).toBe(true);
    await fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(sent.map((c) => c.type)).toEqual(['calibration.jog-check']);

    await fireEvent.click(screen.getByRole('button', { name: 'Jog +x' }));
    await fireEvent.click(await screen.findByRole('button', { name: 'Jog anyway' }));
    await waitFor(() => expect(sent).toHaveLength(3));
    expect(sent[2]).toEqual({ type: 'calibration.jog', dx: 0.01, dy: 0, confirmCrossing: true });
  });

  it('says why a jog near the table edge is refused, and sends no jog', async () => {
    const message =
      "refused: the jog would take the pusher to (480, 200) mm, 20 mm from the table edge; jogs stay 30 mm inside it (the setup's workspace margin, ...)";
    const { client, sent } = core({ verdict: 'refused', message });
    render(JogPanel, { client, lab, run: idleRunStatus });
    await fireEvent.click(screen.getByRole('button', { name: 'Jog +x' }));
    expect((await screen.findByTestId('jog-error')).textContent).toBe(`Jog ${message}`);
    expect(sent.map((c) => c.type)).toEqual(['calibration.jog-check']);
    expect(screen.queryByRole('alertdialog')).toBeNull();
  });
});
