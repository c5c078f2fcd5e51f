// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { afterEach, describe, expect, it } from 'vitest';
import type { PlaybackStatusInfo } from '#contract/console-api';
import { defaultPlannerSettings, plannerPresets } from '#contract/planner-settings';
import RunView from '../../src-renderer/src/views/RunView.svelte';
import SessionsView from '../../src-renderer/src/views/SessionsView.svelte';
import { ConsoleState, idleRun } from '../../src-renderer/src/state/console-state.svelte';
import { fakeClient } from '../helpers/fake-client';
import { plannerStep } from '../session/sample-messages';

afterEach(cleanup);

const file = '2024-05-01T10-20-30-000Z_dry.mcap';
const opened: PlaybackStatusInfo = {
  file,
  duration: 40,
  position: 0,
  playing: false,
  speed: 1,
  ended: false,
  seeks: 1,
};
const summary = {
  sessionId: 'abc',
  startedAt: Date.UTC(2024, 4, 1, 10, 20, 30) / 1000,
  duration: 40,
  mode: 'dry' as const,
  scene: 'isrr-obstacle',
  model: 'parareal:1',
  outcome: 'aborted',
  outcomeDetail: 'Aborted by operator',
  softwareVersion: '0.1.0',
  recovered: false,
  messageCounts: {},
};
const replanned = { ...plannerStep(1, 1), costs: [2.0, 1.25] };

/** Answers like the core and, like the core, publishes the playback status into the state. */
function fakeCore(model: ConsoleState) {
  return fakeClient((command) => {
    switch (command.type) {
      case 'sessions.list':
        return {
          folder: '/tmp/sessions',
          sessions: [{ file, state: 'complete', summary, problem: null, bytes: 10 }],
        };
      case 'sessions.open':
        model.apply({ type: 'playback', status: opened });
        return { summary, steps: 3, playback: opened };
      case 'playback.play':
        model.apply({ type: 'playback', status: { ...opened, playing: true } });
        return { playback: { ...opened, playing: true } };
      case 'playback.speed':
        return { playback: { ...opened, speed: command.speed } };
      case 'playback.close':
        model.apply({ type: 'playback', status: null });
        return {};
      case 'sessions.whatif':
        return { original: plannerStep(command.step, command.step), replanned };
      default:
        throw new Error(`unexpected ${command.type}`);
    }
  });
}

describe('Sessions view', () => {
  it('lists the sessions, opens one for playback and drives the timeline', async () => {
    const model = new ConsoleState();
    model.settings = defaultPlannerSettings;
    const { client, sent } = fakeCore(model);
    render(SessionsView, { client, model });
    const row = await screen.findByRole('listitem', { name: /Session 2024-05-01/ });
    expect(row.textContent).toContain('isrr-obstacle');
    await fireEvent.click(within(row).getByRole('button', { name: /Open session/ }));
    expect(sent).toContainEqual({ type: 'sessions.open', file });
    const banner = await screen.findByText(/Recorded, not live/);
    expect(banner.textContent).toContain('PLAYBACK');
    await fireEvent.click(screen.getByRole('button', { name: '10×' }));
    await fireEvent.click(screen.getByRole('button', { name: /Play/ }));
    expect(sent.slice(-2)).toEqual([{ type: 'playback.speed', speed: 10 }, { type: 'playback.play' }]);
    await fireEvent.click(screen.getByRole('button', { name: /Close playback/ }));
    expect(model.playback).toBeNull();
    await waitFor(() => expect(screen.queryByText(/Recorded, not live/)).toBeNull());
  });

  it('re-plans a logged step with other settings and lists both costs', async () => {
    const model = new ConsoleState();
    // Parareal settings (the default, auto, picks the model by the workers).
    model.settings = plannerPresets['isrr2019-parareal-2'].settings;
    const { client, sent } = fakeCore(model);
    render(SessionsView, { client, model });
    await fireEvent.click(await screen.findByRole('button', { name: /Open session/ }));
    await screen.findByRole('heading', { name: 'What if' });
    await fireEvent.change(screen.getByLabelText('What-if step'), { target: { value: '1' } });
    await fireEvent.change(screen.getByLabelText('What-if Parareal iterations'), { target: { value: '3' } });
    await fireEvent.click(screen.getByRole('button', { name: 'Re-plan step 1' }));
    const costs = await screen.findByRole('table', { name: 'What-if costs' });
    const whatIf = sent.find((c) => c.type === 'sessions.whatif');
    expect(whatIf).toMatchObject({ step: 1, settings: { parareal: { mode: 'iterations', iterations: 3 } } });
    expect(costs.textContent).toContain('2.500'); // the logged step's last best cost
    expect(costs.textContent).toContain('1.250');
    expect(costs.textContent).toContain('Parareal, 3 iterations');
    expect(model.whatIf?.replanned).toBe(replanned);
  });

  it('refuses what-if settings the planner would refuse, without asking the core', async () => {
    const model = new ConsoleState();
    // Parareal settings (the default, auto, picks the model by the workers).
    model.settings = plannerPresets['isrr2019-parareal-2'].settings;
    const { client, sent } = fakeCore(model);
    render(SessionsView, { client, model });
    await fireEvent.click(await screen.findByRole('button', { name: /Open session/ }));
    await screen.findByRole('heading', { name: 'What if' });
    // More iterations than the 4 slices of the preset.
    await fireEvent.change(screen.getByLabelText('What-if Parareal iterations'), { target: { value: '9' } });
    await fireEvent.click(screen.getByRole('button', { name: /Re-plan step/ }));
    expect((await screen.findByRole('alert')).textContent).toContain('parareal.iterations');
    expect(sent.some((c) => c.type === 'sessions.whatif')).toBe(false);
  });
});

describe('Sessions view joining a playback already under way', () => {
  it('shows the timeline from the playback status alone and lets the session be opened again', async () => {
    const model = new ConsoleState();
    model.settings = defaultPlannerSettings;
    const { client, sent } = fakeCore(model);
    model.apply({ type: 'playback', status: { ...opened, playing: true, position: 5 } });
    render(SessionsView, { client, model });
    expect(screen.getByRole('group', { name: 'Playback timeline' })).toBeTruthy();
    expect(screen.getByText(/joined the playback late/)).toBeTruthy();
    const open = await screen.findByRole('button', { name: /Open session/ });
    expect(open).toHaveProperty('disabled', false);
    await fireEvent.click(open);
    expect(sent).toContainEqual({ type: 'sessions.open', file });
    await screen.findByRole('heading', { name: 'What if' });
  });
});

describe('Run view during playback', () => {
  it('keeps start and arm off while a recorded session plays back', () => {
    const { client } = fakeCore(new ConsoleState());
    render(RunView, {
      client,
      run: { ...idleRun, mode: 'real', phase: 'starting' },
      active: true,
      preflight: { ok: true, checks: [] },
      hasScene: true,
      playbackOpen: true,
    });
    expect(screen.getByRole('button', { name: /Start dry run/ })).toHaveProperty('disabled', true);
    expect(screen.getByRole('button', { name: /Start real run/ })).toHaveProperty('disabled', true);
    expect(screen.getByRole('button', { name: 'Arm' })).toHaveProperty('disabled', true);
    expect(screen.getByTestId('run-playback-note').textContent).toContain('close the playback');
    cleanup();
    render(RunView, {
      client,
      run: idleRun,
      active: false,
      preflight: null,
      hasScene: true,
      playbackOpen: false,
    });
    expect(screen.getByRole('button', { name: /Start dry run/ })).toHaveProperty('disabled', false);
  });
});
