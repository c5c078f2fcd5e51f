// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { afterEach, describe, expect, it } from 'vitest';
import type { CalibrationStageState, CalibrationWizardState, ConsoleCommand } from '#contract/console-api';
import { calibrationWizardSchema } from '#contract/console-api';
import type { ConsoleClient } from '../../src-renderer/src/api/client';
import CalibrationWizard from '../../src-renderer/src/components/CalibrationWizard.svelte';
import { tablePresets } from '../../src-renderer/src/lib/calibration-points';
import { referenceScene } from '../helpers/scenes';

const scene = referenceScene('isrr-obstacle');

afterEach(cleanup);

const empty = (): CalibrationStageState => ({ pairs: [], fit: null, saved: null });

/** Answers calibration commands like the core would, with a known fit, and records what was sent. */
function fakeCore(options: { fitError?: string; still?: boolean; rms?: number } = {}) {
  const sent: ConsoleCommand[] = [];
  let state: CalibrationWizardState = {
    lab: 'virtual lab in this process',
    setup: 'virtual-lab-test',
    limit: 0.003,
    capturing: false,
    mocap: empty(),
    robot: empty(),
    pivots: { bodies: [], saved: null },
  };
  const client = {
    transport: 'websocket',
    request: async (command: ConsoleCommand) => {
      sent.push(command);
      if (command.type === 'calibration.capture') {
        const [x, y] = command.table;
        const s = state[command.stage];
        state = {
          ...state,
          [command.stage]: {
            ...s,
            fit: null,
            // A pusher left standing (`still`) measures one place whatever the table point.
            pairs: [
              ...s.pairs,
              { table: command.table, measured: options.still ? [0.4, 0.05, 0] : [x + 0.4, 0.05, y] },
            ],
          },
        };
      } else if (command.type === 'calibration.fit') {
        if (options.fitError) throw new Error(options.fitError);
        const errors = [0.0005, 0.0002, 0.0021];
        state = {
          ...state,
          mocap: {
            ...state.mocap,
            fit: { kind: command.kind, rms: options.rms ?? 0.0013, max: 0.0021, errors, worst: 2 },
          },
        };
      } else if (command.type === 'calibration.save') {
        state = { ...state, mocap: { ...state.mocap, saved: { file: '/setups/lab.json', at: 1 } } };
      }
      return { calibration: calibrationWizardSchema.parse(state) };
    },
    onEvent: () => () => {},
    onLink: () => () => {},
    close: () => {},
  } as unknown as ConsoleClient;
  return { client, sent };
}

const button = (name: string | RegExp) => screen.getByRole('button', { name }) as HTMLButtonElement;

async function capture(preset: number) {
  await fireEvent.change(screen.getByLabelText('Table point preset'), { target: { value: String(preset) } });
  await fireEvent.click(button('Capture point'));
  await waitFor(() => expect(button('Capture point').disabled).toBe(false));
}

describe('CalibrationWizard', () => {
  it('captures at preset table points, fits only with >= 3 pairs and saves only after a fit', async () => {
    const { client, sent } = fakeCore();
    render(CalibrationWizard, { client, scene });
    await waitFor(() => expect(screen.getByText(/Setup/).textContent).toContain('virtual-lab-test'));
    expect(button('Fit').disabled).toBe(true);
    expect(button('Save to setup').disabled).toBe(true);

    // The presets: clear of the scene's obstacle and object, inside the workspace (calibration-points.ts).
    const [, cornerA, cornerB] = tablePresets(scene);
    await capture(1); // near corner -x -y
    await capture(2); // near corner +x -y
    expect(sent.filter((c) => c.type === 'calibration.capture').map((c) => 'table' in c && c.table)).toEqual([
      [cornerA!.x, cornerA!.y, 0],
      [cornerB!.x, cornerB!.y, 0],
    ]);
    expect(button('Fit').disabled).toBe(true);
    await capture(0); // centre
    expect(button('Fit').disabled).toBe(false);
    expect(button('Save to setup').disabled).toBe(true);

    const rows = within(screen.getByRole('table', { name: 'Calibration pairs' })).getAllByRole('row');
    expect(rows).toHaveLength(4);
    expect(rows[1]!.textContent).toContain(`${cornerA!.x * 1000}, ${cornerA!.y * 1000}`);

    await fireEvent.change(screen.getByLabelText('Fit kind'), { target: { value: '2d' } });
    await fireEvent.click(button('Fit'));
    await waitFor(() => expect(screen.getByTestId('calibration-residual')).toBeTruthy());
    expect(sent.at(-1)).toEqual({ type: 'calibration.fit', stage: 'mocap', kind: '2d' });
    expect(screen.getByTestId('calibration-residual').textContent).toMatch(
      /Residual RMS 1\.3 mm, max 2\.1 mm \(limit 3 mm RMS\):\s*within the limit/,
    );
    const fitted = within(screen.getByRole('table', { name: 'Calibration pairs' })).getAllByRole('row');
    expect(fitted[3]!.getAttribute('data-worst')).toBe('true');
    expect(fitted[3]!.textContent).toContain('2.1 mm (worst)');
    expect(fitted[1]!.getAttribute('data-worst')).toBe('false');
    expect(fitted[1]!.textContent).toContain('0.5 mm');

    expect(button('Save to setup').disabled).toBe(false);
    await fireEvent.click(button('Save to setup'));
    await waitFor(() =>
      expect(screen.getByTestId('calibration-saved').textContent).toContain('/setups/lab.json'),
    );
    expect(sent.at(-1)).toEqual({ type: 'calibration.save', stage: 'mocap' });
  });

  it("shows the core's refusal and keeps save disabled", async () => {
    const { client } = fakeCore({ fitError: 'the calibration points lie on a line; use at least 3 points' });
    render(CalibrationWizard, { client, scene });
    await waitFor(() => expect(button('Capture point').disabled).toBe(false));
    for (const p of [0, 0, 0]) await capture(p);
    await fireEvent.click(button('Fit'));
    await waitFor(() => expect(screen.getByRole('alert').textContent).toMatch(/lie on a line/));
    expect(button('Save to setup').disabled).toBe(true);
  });

  it('the robot stage fits planar and sends table points typed in mm', async () => {
    const { client, sent } = fakeCore();
    render(CalibrationWizard, { client, scene });
    await waitFor(() => expect(button('Capture point').disabled).toBe(false));
    await fireEvent.click(screen.getByRole('tab', { name: /Table → robot base/ }));
    expect(screen.queryByLabelText('Fit kind')).toBeNull();
    await fireEvent.input(screen.getByLabelText('Table point x (mm)'), { target: { value: '125' } });
    await fireEvent.input(screen.getByLabelText('Table point y (mm)'), { target: { value: '-40' } });
    await fireEvent.click(button('Capture point'));
    await waitFor(() => expect(sent.at(-1)?.type).toBe('calibration.capture'));
    expect(sent.at(-1)).toEqual({ type: 'calibration.capture', stage: 'robot', table: [0.125, -0.04, 0] });
  });

  it('warns when captures at different table points measured one place, and keeps Save off above the limit', async () => {
    const { client, sent } = fakeCore({ still: true, rms: 0.5309 });
    render(CalibrationWizard, { client, scene });
    await waitFor(() => expect(button('Capture point').disabled).toBe(false));
    await capture(0);
    expect(screen.queryByTestId('calibration-repeated')).toBeNull();
    await capture(1);
    await capture(2);
    expect(screen.getByTestId('calibration-repeated').textContent).toContain(
      'pairs 1 and 2, pairs 1 and 3, pairs 2 and 3 measured the same place',
    );
    await fireEvent.click(button('Fit'));
    await waitFor(() =>
      expect(screen.getByTestId('calibration-residual').textContent).toContain(
        'above the limit: Save is off',
      ),
    );
    expect(button('Save to setup').disabled).toBe(true);
    expect(sent.some((c) => c.type === 'calibration.save')).toBe(false);
  });
});
