// @vitest-environment jsdom
/**
 * The Sessions view recovers a log only after the operator confirms (issue 47, item 5): Recover…
 * asks, Cancel sends nothing, Recover sends sessions.recover with confirm and shows what was lost.
 */
import { cleanup, fireEvent, render, screen, within } from '@testing-library/svelte';
import { afterEach, describe, expect, it } from 'vitest';
import SessionsView from '../../src-renderer/src/views/SessionsView.svelte';
import { ConsoleState } from '../../src-renderer/src/state/console-state.svelte';
import { fakeClient } from '../helpers/fake-client';

afterEach(cleanup);

const file = '2024-05-01T10-20-30-000Z_dry.mcap';
const summary = {
  sessionId: 'abc',
  startedAt: Date.UTC(2024, 4, 1, 10, 20, 30) / 1000,
  duration: 40,
  mode: 'dry' as const,
  scene: 'isrr-obstacle',
  model: 'parareal:1',
  outcome: 'interrupted',
  outcomeDetail: 'the log was cut short and recovered',
  softwareVersion: '0.1.0',
  recovered: true,
  messageCounts: {},
};

describe('Sessions view: recovery', () => {
  it('asks before recovering a log and says what was lost', async () => {
    const model = new ConsoleState();
    let recovered = false;
    const { client, sent } = fakeClient((command) => {
      switch (command.type) {
        case 'sessions.list':
          return {
            folder: '/tmp/sessions',
            sessions: [
              recovered
                ? { file, state: 'complete', summary, problem: null, bytes: 10 }
                : { file, state: 'needs-recovery', summary: null, problem: 'cut short', bytes: 10 },
            ],
          };
        case 'sessions.recover':
          recovered = true;
          return {
            summary,
            messages: 3864,
            lost: 'lost 1 message in 1 damaged range of 369 bytes: bytes 258333-258702 (a wrong length)',
            damagedCopy: `${file}.damaged`,
          };
        default:
          throw new Error(`unexpected ${command.type}`);
      }
    });
    render(SessionsView, { client, model });
    const row = await screen.findByRole('listitem', { name: /Session 2024-05-01/ });
    expect(row.textContent).toMatch(/Recover rewrites it once you confirm/);

    await fireEvent.click(within(row).getByRole('button', { name: /Recover session/ }));
    const ask = screen.getByRole('alertdialog', { name: 'Confirm recovery' });
    expect(ask.textContent).toContain(`${file}.damaged`);
    await fireEvent.click(within(ask).getByRole('button', { name: 'Cancel' }));
    expect(sent.some((c) => c.type === 'sessions.recover')).toBe(false);
    expect(screen.queryByRole('alertdialog')).toBeNull();

    await fireEvent.click(within(row).getByRole('button', { name: /Recover session/ }));
    await fireEvent.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Recover' }));
    expect(sent).toContainEqual({ type: 'sessions.recover', file, confirm: true });
    const status = await screen.findByRole('status');
    expect(status.textContent).toMatch(/3864 messages, lost 1 message .*kept as .*\.damaged/);
    await screen.findByRole('button', { name: /Open session/ });
    expect(screen.queryByRole('button', { name: /Recover session/ })).toBeNull();
  });
});
