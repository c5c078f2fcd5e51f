// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, within } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SessionListingInfo, SessionSummary } from '#contract/console-api';
import SessionList from '../../src-renderer/src/components/SessionList.svelte';
import { formatDate, outcomeWords } from '../../src-renderer/src/lib/session-format';

afterEach(cleanup);

// Wall clocks are s since the epoch (Date.UTC gives ms).
const startedAt = Date.UTC(2024, 4, 1, 10, 20, 30) / 1000;
const summary = (patch: Partial<SessionSummary> = {}): SessionSummary => ({
  sessionId: 'abc',
  startedAt,
  duration: 83.4,
  mode: 'dry',
  scene: 'isrr-obstacle',
  model: 'parareal:2',
  outcome: 'aborted',
  outcomeDetail: 'Aborted by operator',
  softwareVersion: '0.1.0',
  recovered: false,
  messageCounts: {},
  ...patch,
});

const listing = (patch: Partial<SessionListingInfo>): SessionListingInfo => ({
  file: '2024-05-01T10-20-30-000Z_dry.mcap',
  state: 'complete',
  summary: summary(),
  problem: null,
  bytes: 1000,
  ...patch,
});

const sessions: SessionListingInfo[] = [
  listing({ file: '2024-05-01T12-00-00-000Z_real.mcap', state: 'recording', summary: null }),
  listing({
    file: '2024-05-01T11-00-00-000Z_dry.mcap',
    state: 'needs-recovery',
    summary: null,
    problem: 'the log was cut short (no footer)',
  }),
  listing({
    file: '2024-05-01T10-50-00-000Z_dry.mcap',
    summary: summary({
      startedAt: Date.UTC(2024, 4, 1, 10, 50, 0) / 1000,
      outcome: 'interrupted',
      recovered: true,
      outcomeDetail: null,
      duration: 3725,
    }),
  }),
  listing({}),
];

describe('SessionList', () => {
  it('lists date, scene, model, lab, outcome and duration of each session', () => {
    render(SessionList, { sessions, onOpen: () => {} });
    const row = screen.getByRole('listitem', { name: `Session ${formatDate(startedAt)}` });
    const text = row.textContent!;
    expect(text).toContain('isrr-obstacle');
    expect(text).toContain('parareal:2');
    // A console dry run from before logs named their lab: always the console's virtual lab.
    expect(within(row).getByTestId('session-lab').textContent).toBe('virtual, dry run');
    expect(text).toContain('aborted');
    expect(text).toContain('Aborted by operator');
    expect(text).toContain('1:23');
    expect(within(row).getByRole('button', { name: /Open session/ })).toHaveProperty('disabled', false);
  });

  it('says an experiment run had no lab: it ran in the simulated world', () => {
    const at = Date.UTC(2024, 4, 1, 9, 0, 0) / 1000;
    const experiment = listing({
      file: '2024-05-01T09-00-00-000Z_parareal-2_scene-0.mcap',
      summary: summary({
        startedAt: at,
        origin: 'experiment',
        outcome: 'finished',
        outcomeDetail: 'Goal reached',
      }),
    });
    render(SessionList, { sessions: [experiment], onOpen: () => {} });
    const row = screen.getByRole('listitem', { name: `Session ${formatDate(at)}` });
    expect(within(row).getByTestId('session-lab').textContent).toBe(
      'none: an experiment run in the simulated world',
    );
  });

  it('says honestly which logs are being recorded or need recovery, and does not open them', () => {
    render(SessionList, { sessions, onOpen: () => {} });
    const items = screen.getAllByRole('listitem');
    expect(items).toHaveLength(4);
    const [recording, cutShort, recovered] = items as [HTMLElement, HTMLElement, HTMLElement];
    expect(recording.textContent).toContain('RECORDING');
    expect(recording.textContent).toContain('A run is writing this log now');
    // The date still comes from the file name when the log has no summary yet.
    expect(recording.textContent).toContain(formatDate(Date.UTC(2024, 4, 1, 12, 0, 0) / 1000));
    expect(within(recording).getByRole('button')).toHaveProperty('disabled', true);
    expect(cutShort.textContent).toContain('NEEDS RECOVERY');
    expect(cutShort.textContent).toContain('the log was cut short (no footer)');
    expect(within(cutShort).getByRole('button')).toHaveProperty('disabled', true);
    expect(recovered.textContent).toContain('interrupted (recovered)');
    expect(recovered.textContent).toContain('1:02:05');
    expect(within(recovered).getByRole('button')).toHaveProperty('disabled', false);
  });

  it('opens the session the operator picks, and not again while it is open', async () => {
    const onOpen = vi.fn();
    const { rerender } = render(SessionList, { sessions, onOpen });
    const row = screen.getByRole('listitem', { name: `Session ${formatDate(startedAt)}` });
    await fireEvent.click(within(row).getByRole('button'));
    expect(onOpen).toHaveBeenCalledWith('2024-05-01T10-20-30-000Z_dry.mcap');
    await rerender({ sessions, onOpen, openFile: '2024-05-01T10-20-30-000Z_dry.mcap' });
    expect(within(row).getByRole('button')).toHaveProperty('disabled', true);
    expect(row.getAttribute('aria-current')).toBe('true');
  });

  it('says truthfully which lab a run was on: `parapush run` on the virtual lab is no real-lab run', () => {
    const cli = (lab: SessionSummary['lab'], outcome: string, minute: number) =>
      listing({
        file: `2024-05-02T10-${minute}-00-000Z_real.mcap`,
        summary: summary({ mode: 'real', lab, outcome, startedAt: Date.UTC(2024, 4, 2, 10, minute) / 1000 }),
      });
    render(SessionList, {
      sessions: [
        cli('virtual', 'failure', 10),
        cli('real', 'finished', 11),
        cli(undefined, 'success', 12),
        cli(null, 'action-limit', 13),
      ],
      onOpen: () => {},
    });
    const labs = screen.getAllByTestId('session-lab').map((e) => e.textContent);
    expect(labs).toEqual([
      'virtual',
      'real',
      'unknown (recorded before logs named their lab)',
      'unknown (recorded before logs named their lab)',
    ]);
    // One wording of outcomes, whoever recorded the log.
    const outcomes = screen.getAllByRole('listitem').map((li) => {
      const dt = [...li.querySelectorAll('dt')].find((d) => d.textContent === 'Outcome')!;
      return dt.nextElementSibling!.textContent;
    });
    expect(outcomes).toEqual(['failed', 'finished', 'finished', 'failed (action limit)']);
  });

  it('reads every older word for how a run ended as the run outcome it gives', () => {
    const words = ['finished', 'aborted', 'failed', 'success', 'failure', 'time-limit', 'stopped', 'refused'];
    expect(words.map(outcomeWords)).toEqual([
      'finished',
      'aborted',
      'failed',
      'finished',
      'failed',
      'failed (time limit)',
      'failed (safety stop)',
      'failed (not armed)',
    ]);
    expect(outcomeWords('interrupted')).toBe('interrupted');
  });

  it('says so when there are no sessions', () => {
    render(SessionList, { sessions: [], onOpen: () => {} });
    expect(screen.getByText(/No recorded sessions yet/)).toBeTruthy();
  });
});
