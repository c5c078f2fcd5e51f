/**
 * Pre-flight names each device problem in the operator's words (issue 28): an e-Series in Local
 * mode, a program that did not start after upload, a gripper that did not acknowledge a SET.
 */
import { describe, expect, it } from 'vitest';
import { LOCAL_MODE } from '../../src-main/robot/dashboard';
import { SET_NOT_ACKNOWLEDGED } from '../../src-main/robot/gripper';
import { PROGRAM_NOT_RUNNING } from '../../src-main/robot/ur5-connection';
import { preflight, type PreflightInputs } from '../../src-main/safety/preflight';
import { loadSceneFile } from '../../src-main/common/config-files';
import type { RobotState } from '../../src-main/robot/robot-state';
import path from 'node:path';
import { readyRobotState } from '../helpers/robot-state';
import { repoRoot } from '../helpers/scenes';

const scene = loadSceneFile(path.join(repoRoot, 'test/fixtures/lab-short-scene.json'));

/** A robot whose program is not playing (stopped runtime, nothing in the program registers). */
const notPlaying: RobotState = readyRobotState({
  timestamp: 1,
  receivedAt: 1,
  tcpPose: [0, -0.5, 0.2, 0, Math.PI, 0],
  runtimeState: 'STOPPED',
  robotStatus: { powerOn: true, programRunning: false, teachButtonPressed: false, powerButtonPressed: false },
  program: { ackSequence: 0, state: 'NOT_RUNNING', heartbeat: 0 },
});

function inputs(over: Partial<PreflightInputs>): PreflightInputs {
  return {
    mocap: undefined,
    robot: notPlaying,
    robotLinkUp: true,
    gripper: { held: true, detail: 'OBJ 2 (pusher held)' },
    calibration: { residual: 0 },
    scene,
    maxCalibrationResidual: 0.005,
    ...over,
  };
}

const check = (r: ReturnType<typeof preflight>, id: string) => r.checks.find((c) => c.id === id)!;

describe('pre-flight names device problems plainly', () => {
  it('an e-Series in Local mode', () => {
    const r = preflight(inputs({ controller: { problem: LOCAL_MODE } }));
    expect(check(r, 'program').ok).toBe(false);
    expect(check(r, 'program').reason).toMatch(
      /^controller in Local mode: switch to Remote Control on the teach pendant; runtime STOPPED/,
    );
  });

  it('a program that did not start after upload', () => {
    const r = preflight(inputs({ controller: { problem: `${PROGRAM_NOT_RUNNING} (robot IDLE)` } }));
    expect(check(r, 'program').reason).toMatch(/^control program not running after upload \(robot IDLE\)/);
  });

  it('a gripper that did not acknowledge a SET', () => {
    const detail = `${SET_NOT_ACKNOWLEDGED} (SET ACT 1): gripper: no reply within 2 s`;
    const r = preflight(inputs({ gripper: { held: false, detail } }));
    expect(check(r, 'pusher-held')).toMatchObject({ ok: false, reason: detail });
  });

  it('a controller problem says nothing once the program plays', () => {
    const playing: RobotState = {
      ...notPlaying,
      runtimeState: 'PLAYING',
      robotStatus: { ...notPlaying.robotStatus, programRunning: true },
      program: { ackSequence: 1, state: 'ARMED', heartbeat: 5 },
    };
    const r = preflight(inputs({ robot: playing, controller: { problem: LOCAL_MODE } }));
    expect(check(r, 'program')).toMatchObject({ ok: true, reason: 'runtime PLAYING, program ARMED' });
  });
});
