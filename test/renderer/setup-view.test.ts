// @vitest-environment jsdom
/**
 * The Setup view's lab, scene and safety lines (issue 17): the lab says whether it is virtual or
 * real by its devices' words; the scene line and the checklist's scene check speak of the one
 * scene the table view draws (no "Scene valid: ok" beside "No scene loaded"); the safety line
 * shows the robot's safety state from the start, or says truthfully that nothing is checked yet.
 */
import { cleanup, render, screen } from '@testing-library/svelte';
import { afterEach, describe, expect, it } from 'vitest';
import {
  calibrationWizardSchema,
  idleRunStatus,
  type ConsoleCommand,
  type PreflightReportPayload,
  type RunStatus,
} from '../../src-main/contract/console-api';
import type { LabView } from '../../src-main/contract/lab-view';
import type { RobotState } from '../../src-main/robot/robot-state';
import { preflight } from '../../src-main/safety/preflight';
import type { ConsoleClient } from '../../src-renderer/src/api/client';
import SetupView from '../../src-renderer/src/views/SetupView.svelte';
import { referenceScene } from '../helpers/scenes';
import { sampleLab } from '../session/sample-messages';

afterEach(cleanup);

const scene = referenceScene('isrr-obstacle');

function checklist(safetyMode: string, goalOff = false): PreflightReportPayload {
  const robot = {
    robotMode: 'RUNNING',
    safetyMode,
    runtimeState: 'PLAYING',
    robotStatus: { programRunning: true },
    program: { ackSequence: 0, state: 'ARMED', heartbeat: 0 },
  } as RobotState;
  return preflight({
    mocap: undefined,
    robot,
    gripper: { held: false, detail: 'not checked' },
    calibration: { residual: 0.001 },
    scene: goalOff ? { ...scene, goal: { ...scene.goal, center: { x: 5, y: 0 } } } : scene,
    maxCalibrationResidual: 0.003,
  });
}

const client = {
  transport: 'websocket',
  request: async (_command: ConsoleCommand) => {
    const stage = { pairs: [], fit: null, saved: null };
    return {
      calibration: calibrationWizardSchema.parse({
        lab: null,
        setup: null,
        limit: 0.003,
        capturing: false,
        mocap: stage,
        robot: stage,
      }),
    };
  },
  onEvent: () => () => {},
  onLink: () => () => {},
  close: () => {},
} as unknown as ConsoleClient;

const lab: LabView = { ...sampleLab, scene: scene.name, description: 'virtual lab in this process' };
const idle = (safety: RunStatus['safety']): RunStatus => ({ ...idleRunStatus, safety });
const text = (id: string) => screen.getByTestId(id).textContent?.replace(/\s+/g, ' ').trim();

describe('Setup view: lab, scene and safety', () => {
  it('names the virtual lab by its devices, the scene the checklist judges, and SAFE before any run', () => {
    render(SetupView, {
      client,
      scene,
      connections: [],
      preflight: checklist('NORMAL'),
      run: idle('safe'),
      lab,
    });
    expect(text('lab-status')).toMatch(/^Virtual lab: virtual lab in this process/);
    expect(text('lab-status')).toContain('UR controller: URSoftware 5.11.0.0 (virtual)');
    expect(text('lab-status')).toContain('motion capture: Parapush virtual Motive');
    expect(text('scene-status')).toBe('✔ isrr-obstacle: goal and objects on the table');
    expect(text('safety-status')).toBe('✔ SAFE: robot safety mode NORMAL');
  });

  it('shows a stop and a bad scene in red, from the same checklist', () => {
    render(SetupView, {
      client,
      scene,
      connections: [],
      preflight: checklist('PROTECTIVE_STOP', true),
      run: idle('stopped'),
      lab,
    });
    expect(text('safety-status')).toBe('✖ STOPPED: robot safety mode PROTECTIVE_STOP');
    expect(screen.getByTestId('safety-status').dataset.ok).toBe('false');
    expect(text('scene-status')).toBe('✖ isrr-obstacle: goal is off the table');
  });

  it('says the lab is on another scene until the next run, when the operator loaded a new one', () => {
    render(SetupView, {
      client,
      scene,
      connections: [],
      preflight: checklist('NORMAL'),
      run: idle('safe'),
      lab: { ...lab, scene: 'open-table' },
    });
    expect(text('scene-status')).toContain(
      'The lab is on open-table until the next run opens it on isrr-obstacle.',
    );
  });

  it('says nothing is checked yet without a lab, and no scene without one', () => {
    render(SetupView, {
      client,
      scene: null,
      connections: [],
      preflight: null,
      run: idle('unknown'),
      lab: null,
    });
    expect(text('lab-status')).toMatch(/^No lab/);
    expect(text('scene-status')).toBe('✖ No scene loaded: load one in the Scene view.');
    expect(text('safety-status')).toMatch(/^\? Not checked yet: no lab is connected/);
  });

  it('tells a real lab from a virtual one, and a lab not connected', () => {
    render(SetupView, {
      client,
      scene,
      connections: [],
      preflight: checklist('NORMAL'),
      run: idle('safe'),
      lab: { ...lab, kind: 'real', robot: 'URSoftware 5.11.1 (Mar 17 2021)', mocap: 'Motive' },
    });
    expect(text('lab-status')).toMatch(/^Real lab:/);
    cleanup();
    render(SetupView, {
      client,
      scene,
      connections: [],
      preflight: null,
      run: idle('unknown'),
      lab: { ...lab, kind: 'unknown', connected: false, robot: null, mocap: null, setup: null },
    });
    expect(text('lab-status')).toBe('Not connected: virtual lab in this process');
  });
});

describe('Setup view: safety after a run', () => {
  it("keeps the robot's safety mode apart from the run's last word", () => {
    render(SetupView, {
      client,
      scene,
      connections: [],
      preflight: checklist('NORMAL'),
      run: {
        ...idleRunStatus,
        phase: 'aborted',
        mode: 'dry',
        safety: 'stopped',
        reason: 'Aborted by operator',
      },
      lab,
    });
    expect(text('safety-status')).toBe(
      '✔ robot safety mode NORMAL (status bar: STOPPED, as the last run ended)',
    );
  });
});
