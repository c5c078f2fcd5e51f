// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { idleRunStatus, type Connection, type RunStatus } from '#contract/console-api';
import StatusBar from '../../src-renderer/src/components/StatusBar.svelte';
import type { RunClock } from '../../src-renderer/src/lib/run-clock';

afterEach(cleanup);

const run = (patch: Partial<RunStatus> = {}): RunStatus => ({ ...idleRunStatus, ...patch });
/** The clock of a run that is not in progress, stopped at `stopped` seconds. */
const still = (stopped = 0): RunClock => ({ active: false, startedAt: null, stopped });
const connections: Connection[] = [
  { id: 'optitrack', label: 'OptiTrack', state: 'connected', latency: 0.0042, detail: '' },
  { id: 'ur5', label: 'UR5', state: 'not-configured', latency: null, detail: '' },
];

describe('StatusBar', () => {
  it('states safety, armed state and connections in words, not colour alone', () => {
    render(StatusBar, {
      run: run({ safety: 'stopped', armed: true }),
      clock: still(),
      connections,
      link: { up: true, detail: '' },
      onAbort: () => {},
    });
    expect(screen.getByTestId('safety').textContent).toContain('STOPPED');
    expect(screen.getByTestId('armed').textContent).toContain('ARMED');
    expect(screen.getByText(/OptiTrack: connected \(4\.2 ms\)/)).toBeTruthy();
    expect(screen.getByText(/UR5: not configured/)).toBeTruthy();
  });

  it('shows the abort reason on its own line and the run time', () => {
    render(StatusBar, {
      run: run({ phase: 'aborted', mode: 'dry', reason: 'Aborted by operator', elapsed: 75, safety: 'safe' }),
      clock: still(75),
      connections: [],
      link: { up: true, detail: '' },
      onAbort: () => {},
    });
    expect(screen.getByTestId('run-reason').textContent).toBe('Aborted by operator');
    expect(screen.getByTestId('run-phase').textContent).toContain('ABORTED (dry run)');
    expect(screen.getByLabelText('Run time').textContent).toBe('01:15');
    expect(screen.getByTestId('safety').textContent).toContain('SAFE');
    expect(screen.getByTestId('armed').textContent).toContain('DISARMED');
    // The reason is on the banner line above the cells, not squeezed into the run cell.
    const banner = screen.getByTestId('run-banner');
    expect(banner.dataset.tone).toBe('stop');
    expect(banner.textContent).toContain('ABORTED');
    expect(screen.getByTestId('run-phase').contains(screen.getByTestId('run-reason'))).toBe(false);
  });

  it('has no banner without a reason, and a green one for a finished run', async () => {
    const props = {
      run: run(),
      clock: still(),
      connections: [],
      link: { up: true, detail: '' },
      onAbort() {},
    };
    const { rerender } = render(StatusBar, props);
    expect(screen.queryByTestId('run-banner')).toBeNull();
    await rerender({ ...props, run: run({ phase: 'finished', reason: 'Goal reached', elapsed: 12 }) });
    expect(screen.getByTestId('run-banner').dataset.tone).toBe('done');
    expect(screen.getByTestId('run-banner').textContent).toContain('FINISHED');
  });

  it('ticks the timer while the run is active and keeps it where the run stopped', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    try {
      const startedAt = Date.now() / 1000;
      const props = {
        run: run({ phase: 'running', mode: 'dry', startedAt, safety: 'safe' }),
        clock: { active: true, startedAt, stopped: 0 },
        connections: [],
        link: { up: true, detail: '' },
        onAbort() {},
      };
      const { rerender } = render(StatusBar, props);
      const time = () => screen.getByLabelText('Run time').textContent;
      expect(time()).toBe('00:00');
      await vi.advanceTimersByTimeAsync(65_000);
      expect(time()).toBe('01:05');
      await rerender({
        ...props,
        run: run({ phase: 'aborted', mode: 'dry', startedAt, reason: 'Aborted by operator' }),
        clock: { active: false, startedAt, stopped: 65.2 },
      });
      await vi.advanceTimersByTimeAsync(10_000);
      expect(time()).toBe('01:05');
    } finally {
      vi.useRealTimers();
    }
  });

  it('says when the link to the console core is lost', () => {
    render(StatusBar, {
      run: run(),
      connections: [],
      clock: still(),
      link: { up: false, detail: 'closed' },
      onAbort: () => {},
    });
    expect(screen.getByText(/CONSOLE LINK LOST/)).toBeTruthy();
  });

  it('has a large Abort button that calls abort', async () => {
    const onAbort = vi.fn();
    render(StatusBar, {
      run: run(),
      clock: still(),
      connections: [],
      link: { up: true, detail: '' },
      onAbort,
    });
    await fireEvent.click(screen.getByRole('button', { name: /ABORT/ }));
    expect(onAbort).toHaveBeenCalledOnce();
  });

  it('marks playback of a recorded session so it is not taken for a live run', async () => {
    const props = {
      run: run(),
      clock: still(),
      connections: [],
      link: { up: true, detail: '' },
      onAbort: () => {},
    };
    const { rerender } = render(StatusBar, props);
    expect(screen.queryByTestId('playback-mode')).toBeNull();
    expect(screen.getByRole('contentinfo').dataset.mode).toBe('live');
    const playback = {
      file: 's.mcap',
      duration: 90,
      position: 12,
      playing: true,
      speed: 10,
      ended: false,
      seeks: 1,
    };
    await rerender({ ...props, playback });
    const cell = screen.getByTestId('playback-mode');
    expect(cell.textContent).toContain('PLAYBACK, NOT LIVE');
    expect(cell.textContent).toContain('playing');
    expect(cell.textContent).toContain('0:12 / 1:30 at 10×');
    expect(screen.getByRole('contentinfo').dataset.mode).toBe('playback');
    // Abort stays on screen whatever plays back.
    expect(screen.getByRole('button', { name: /ABORT/ })).toBeTruthy();
  });

  it('shows a reached goal green and calm even though the arm stopped at the end', () => {
    render(StatusBar, {
      run: run({ phase: 'finished', mode: 'dry', reason: 'Goal reached', elapsed: 24, safety: 'stopped' }),
      clock: still(24),
      connections: [],
      link: { up: true, detail: '' },
      onAbort: () => {},
    });
    const banner = screen.getByTestId('run-banner');
    expect(banner.dataset.tone).toBe('done');
    expect(banner.textContent).toContain('FINISHED');
    expect(banner.textContent).not.toContain('STOP');
  });

  it("shows the recording's outcome, not the live run's, while a session plays back", () => {
    render(StatusBar, {
      run: run({ phase: 'aborted', mode: 'dry', reason: 'Aborted by operator', safety: 'stopped' }),
      clock: still(5),
      connections: [],
      link: { up: true, detail: '' },
      playback: {
        file: 's.mcap',
        duration: 30,
        position: 30,
        playing: false,
        speed: 1,
        ended: true,
        seeks: 1,
      },
      recorded: { outcome: 'success', detail: 'goal reached', mode: 'dry' },
      onAbort: () => {},
    });
    const recorded = screen.getByTestId('recorded-outcome');
    expect(recorded.textContent).toContain('RECORDED RUN: FINISHED (dry run)');
    expect(recorded.dataset.tone).toBe('done');
    expect(screen.queryByTestId('run-phase')).toBeNull();
    expect(screen.queryByTestId('run-banner')).toBeNull();
    expect(screen.getByRole('contentinfo').textContent).not.toContain('ABORTED');
  });
});
