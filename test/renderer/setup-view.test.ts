// @vitest-environment jsdom
/**
 * The Setup view's lab, scene and safety lines (issue 17): the lab says whether it is virtual or
 * real by its devices' words; the scene line and the checklist's scene check speak of the one
 * scene the table view draws (no "Scene valid: ok" beside "No scene loaded"); the safety line
 * shows the robot's safety state from the start, or says truthfully that nothing is checked yet.
 */
import { cleanup, render, screen } from '@testing-library/svelte';
import type { ComponentProps } from 'svelte';
import { afterEach, describe, expect, it } from 'vitest';
import { idleRunStatus, type RunStatus } from '#contract/console-api';
import type { LabView } from '#contract/lab-view';
import SetupView from '../../src-renderer/src/views/SetupView.svelte';
import { fakeClient } from '../helpers/fake-client';
import { referenceScene } from '../helpers/scenes';
import { idleCalibrationWizard, setupChecklist } from '../helpers/setup-view';
import { sampleLab } from '../session/sample-messages';

afterEach(cleanup);

const scene = referenceScene('isrr-obstacle');

/** The checklist for a robot in `safetyMode` with its program playing; `goalOff` moves the goal off the table. */
const checklist = (safetyMode: string, goalOff = false) =>
  setupChecklist({
    scene: goalOff ? { ...scene, goal: { ...scene.goal, center: { x: 5, y: 0 } } } : scene,
    safetyMode,
    programPlaying: true,
    pusherHeld: false,
  });

const { client } = fakeClient(idleCalibrationWizard);

const lab: LabView = { ...sampleLab, scene: scene.name, description: 'virtual lab in this process' };
const idle = (safety: RunStatus['safety']): RunStatus => ({ ...idleRunStatus, safety });
const text = (id: string) => screen.getByTestId(id).textContent?.replace(/\s+/g, ' ').trim();

/** The view of the virtual lab on isrr-obstacle, SAFE and idle, with `props` instead. */
const show = (props: Partial<ComponentProps<typeof SetupView>> = {}) =>
  render(SetupView, {
    client,
    scene,
    connections: [],
    preflight: checklist('NORMAL'),
    run: idle('safe'),
    lab,
    ...props,
  });

describe('Setup view: lab, scene and safety', () => {
  it('names the virtual lab by its devices, the scene the checklist judges, and SAFE before any run', () => {
    show();
    expect(text('lab-status')).toMatch(/^Virtual lab: virtual lab in this process/);
    expect(text('lab-status')).toContain('UR controller: URSoftware 5.11.0.0 (virtual)');
    expect(text('lab-status')).toContain('motion capture: Parapush virtual Motive');
    expect(text('scene-status')).toBe('✔ isrr-obstacle: goal and objects on the table');
    expect(text('safety-status')).toBe('✔ SAFE: robot safety mode NORMAL');
  });

  it('shows a stop and a bad scene in red, from the same checklist', () => {
    show({ preflight: checklist('PROTECTIVE_STOP', true), run: idle('stopped') });
    expect(text('safety-status')).toBe('✖ STOPPED: robot safety mode PROTECTIVE_STOP');
    expect(screen.getByTestId('safety-status').dataset.ok).toBe('false');
    expect(text('scene-status')).toBe('✖ isrr-obstacle: goal is off the table');
  });

  it('says the lab is on another scene until the next run, when the operator loaded a new one', () => {
    show({ lab: { ...lab, scene: 'open-table' } });
    expect(text('scene-status')).toContain(
      'The lab is on open-table until the next run opens it on isrr-obstacle.',
    );
  });

  it('says nothing is checked yet without a lab, and no scene without one', () => {
    show({ scene: null, preflight: null, run: idle('unknown'), lab: null });
    expect(text('lab-status')).toMatch(/^No lab/);
    expect(text('scene-status')).toBe('✖ No scene loaded: load one in the Scene view.');
    expect(text('safety-status')).toMatch(/^\? Not checked yet: no lab is connected/);
  });

  it('tells a real lab from a virtual one, and a lab not connected', () => {
    show({ lab: { ...lab, kind: 'real', robot: 'URSoftware 5.11.1 (Mar 17 2021)', mocap: 'Motive' } });
    expect(text('lab-status')).toMatch(/^Real lab:/);
    cleanup();
    show({
      preflight: null,
      run: idle('unknown'),
      lab: { ...lab, kind: 'unknown', connected: false, robot: null, mocap: null, setup: null },
    });
    expect(text('lab-status')).toBe('Not connected: virtual lab in this process');
  });
});

describe('Setup view: safety after a run', () => {
  it("keeps the robot's safety mode apart from the run's last word", () => {
    show({
      run: {
        ...idleRunStatus,
        phase: 'aborted',
        mode: 'dry',
        safety: 'stopped',
        reason: 'Aborted by operator',
      },
    });
    expect(text('safety-status')).toBe(
      '✔ robot safety mode NORMAL (status bar: STOPPED, as the last run ended)',
    );
  });

  it('shows a red check with its fix under its reason, and no fix under a green one', () => {
    const base = checklist('NORMAL');
    const checks = base.checks.map((c) =>
      c.id === 'speed-slider'
        ? {
            ...c,
            ok: false,
            reason: 'speed scaling 50 %: every motion would run slower than planned',
            fix: 'set the speed slider on the teach pendant to 100 %',
          }
        : c.id === 'reach'
          ? { ...c, fix: 'never shown: the check is green' }
          : c,
    );
    show({ preflight: { ok: false, checks } });
    expect(
      screen.getAllByTestId('check-fix').map((e) => e.textContent?.replace(/\s+/g, ' ').trim()),
    ).toContain('Fix: set the speed slider on the teach pendant to 100 %');
    expect(screen.queryByText(/never shown/)).toBeNull();
  });
});
