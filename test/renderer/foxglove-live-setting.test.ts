// @vitest-environment jsdom
/**
 * The Setup view's Foxglove live view setting: off as the snapshot says, on at the port the
 * operator typed (the core's URL shown), off again; a bad port keeps it from being turned on, and
 * the core's refusal is shown as it came.
 */
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import { afterEach, describe, expect, it } from 'vitest';
import { ConsoleCommandError, type ConsoleCommand, type RunStatus } from '#contract/console-api';
import SetupView from '../../src-renderer/src/views/SetupView.svelte';
import { fakeClient } from '../helpers/fake-client';
import { referenceScene } from '../helpers/scenes';
import { idleCalibrationWizard } from '../helpers/setup-view';

afterEach(cleanup);

const run: RunStatus = {
  phase: 'idle',
  mode: null,
  reason: null,
  startedAt: null,
  elapsed: 0,
  safety: 'safe',
  armed: false,
};

const TOKEN = 'Xk3v9QpW2mYt7LcR1sZa8HnE4uJd6FbG';

/** Answers foxglove.set as the core does (or refuses it), the wizard's state otherwise. */
function fakeCore(refusal?: string) {
  return fakeClient((command: ConsoleCommand) => {
    if (command.type !== 'foxglove.set') return idleCalibrationWizard();
    if (refusal) throw new ConsoleCommandError(refusal);
    return {
      foxglove: { url: command.port === null ? null : `ws://127.0.0.1:${command.port}/?token=${TOKEN}` },
    };
  });
}

const toggle = () =>
  screen.getByRole('checkbox', { name: /Serve each run live to Foxglove/ }) as HTMLInputElement;
const port = () => screen.getByRole('textbox', { name: 'port' }) as HTMLInputElement;
const settings = (sent: ConsoleCommand[]) => sent.filter((c) => c.type === 'foxglove.set');

describe('Setup view: the Foxglove live view', () => {
  it('turns the view on at the typed port, shows where to connect, and off again', async () => {
    const { client, sent } = fakeCore();
    render(SetupView, {
      client,
      scene: referenceScene('isrr-obstacle'),
      connections: [],
      preflight: null,
      run,
    });
    expect(toggle().checked).toBe(false);
    expect(screen.getByText(/The token in the URL is this launch's key/)).toBeTruthy();
    await fireEvent.input(port(), { target: { value: '9000' } });
    await fireEvent.click(toggle());
    await waitFor(() =>
      expect(screen.getByTestId('foxglove-url').textContent).toContain(`ws://127.0.0.1:9000/?token=${TOKEN}`),
    );
    expect(toggle().checked).toBe(true);
    expect(port().disabled).toBe(true);
    await fireEvent.click(toggle());
    await waitFor(() => expect(screen.queryByTestId('foxglove-url')).toBeNull());
    expect(settings(sent)).toEqual([
      { type: 'foxglove.set', port: 9000 },
      { type: 'foxglove.set', port: null },
    ]);
  });

  it('shows it on when the snapshot says so', () => {
    const { client } = fakeCore();
    render(SetupView, {
      client,
      scene: null,
      connections: [],
      preflight: null,
      run,
      foxglove: { url: `ws://127.0.0.1:8765/?token=${TOKEN}` },
    });
    expect(toggle().checked).toBe(true);
    expect(screen.getByTestId('foxglove-url').textContent).toContain(`ws://127.0.0.1:8765/?token=${TOKEN}`);
  });

  it('copies the whole URL, token included, for the viewer to paste', async () => {
    const { client } = fakeCore();
    const copied: string[] = [];
    Object.defineProperty(navigator, 'clipboard', {
      configurable: true,
      value: { writeText: (text: string) => Promise.resolve(void copied.push(text)) },
    });
    render(SetupView, {
      client,
      scene: null,
      connections: [],
      preflight: null,
      run,
      foxglove: { url: `ws://127.0.0.1:8765/?token=${TOKEN}` },
    });
    await fireEvent.click(screen.getByRole('button', { name: 'Copy URL' }));
    await waitFor(() => expect(screen.getByRole('button', { name: 'Copied' })).toBeTruthy());
    expect(copied).toEqual([`ws://127.0.0.1:8765/?token=${TOKEN}`]);
  });

  it('cannot be turned on with a bad port, and shows the core refusal', async () => {
    const { client, sent } = fakeCore(
      'port 8765 on 127.0.0.1 is in use: choose another (or 0 for a free one)',
    );
    render(SetupView, { client, scene: null, connections: [], preflight: null, run });
    await fireEvent.input(port(), { target: { value: '70000' } });
    expect(toggle().disabled).toBe(true);
    expect(screen.getByText(/whole number from 0 to 65535/)).toBeTruthy();
    await fireEvent.input(port(), { target: { value: '8765' } });
    await fireEvent.click(toggle());
    await waitFor(() =>
      expect(screen.getByRole('alert').textContent).toContain('8765 on 127.0.0.1 is in use'),
    );
    expect(toggle().checked).toBe(false);
    expect(settings(sent)).toEqual([{ type: 'foxglove.set', port: 8765 }]);
  });
});
