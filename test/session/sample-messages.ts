/**
 * Realistic messages for every session channel, shaped like what the lab produces: a UR5 state
 * at 500 Hz, OptiTrack frames at 120 Hz with three rigid bodies, planner steps with Parareal
 * predictions. Used by the session tests, the crash child and the logs benchmark.
 */
import type { ConsoleEvent, RunStatus } from '#contract/console-api';
import { type PlannerStep } from '#contract/planner-events';
import { defaultPlannerSettings } from '#contract/planner-settings';
import type { Scene } from '#contract/scene';
import type { MocapSnapshot, PlanarPoses } from '../../src-main/mocap/scene-binding';
import type { MocapStats } from '../../src-main/mocap/stats';
import type { RobotState } from '../../src-main/robot/robot-state';
import {
  decodeBits,
  ROBOT_STATUS_BITS,
  SAFETY_STATUS_BITS,
} from '../../src-main/robot/rtde/robot-state-codes';
import type { LabView } from '#contract/lab-view';
import { setupView } from '../../src-main/lab-link/link-views';
import type { Decision } from '../../src-main/safety/supervisor';
import type { SessionRecorder } from '../../src-main/session/recorder';
import { setupSchema, type Setup } from '../../src-main/calibration/setup-file';
import { openTableScene } from '../helpers/scenes';

export const sampleScene: Scene = openTableScene(1);
export const sampleSettings = defaultPlannerSettings;
export const sliderIds = sampleScene.sliders.map((s) => s.id);

/** A lab setup: Y-up motion capture turned a quarter about z, the robot base 0.5 m along the table's x. */
export const sampleSetup: Setup = setupSchema.parse({
  name: 'sample',
  mocap: {
    setup: 'sample',
    kind: '3d',
    upAxis: 'y',
    rotation: [0, 0, Math.SQRT1_2, Math.SQRT1_2],
    translation: [0.1, -0.2, 0],
    residual: { rms: 0.001, max: 0.002, pairs: 4 },
    createdAt: new Date(0).toISOString(),
  },
  table: { size: { x: 1, y: 0.8 } },
  robot: { calibration: { yaw: Math.PI / 2, offset: [0.5, 0, 0] }, pusherOffset: [0, 0, 0.2] },
});

/** The virtual lab as a run on it records it (/session/lab). */
export const sampleLab: LabView = {
  kind: 'virtual',
  description: 'robot 127.0.0.1, motion capture 127.0.0.1',
  connected: true,
  robot: 'URSoftware 5.11.0.0 (virtual)',
  mocap: 'Parapush virtual Motive',
  scene: sampleScene.name,
  setup: setupView(sampleSetup),
};

export function robotState(t: number): RobotState {
  return {
    timestamp: t,
    receivedAt: t,
    tcpPose: [0.4 + 0.01 * Math.sin(t), -0.1 + 0.01 * Math.cos(t), 0.05, 0, 3.1416, 0],
    tcpSpeed: [0.01 * Math.cos(t), -0.01 * Math.sin(t), 0, 0, 0, 0],
    robotMode: 'RUNNING',
    safetyMode: 'NORMAL',
    runtimeState: 'PLAYING',
    // Powered on with the program running; normal safety.
    robotStatus: decodeBits(0b11, ROBOT_STATUS_BITS),
    safetyStatus: decodeBits(0b1, SAFETY_STATUS_BITS),
    speedScaling: 1,
    program: { ackSequence: Math.floor(t * 125), state: 'RUNNING', heartbeat: Math.floor(t * 500) },
  } as unknown as RobotState;
}

export function mocapFrame(frameNumber: number, t: number): MocapSnapshot {
  const body = (id: number, name: string, x: number) => ({
    id,
    name,
    position: [x + 0.001 * Math.sin(t), 0.02, 0.3] as [number, number, number],
    orientation: [0, 0, Math.sin(t / 10), Math.cos(t / 10)] as [number, number, number, number],
    meanError: 0.0002,
    trackingValid: true,
  });
  return {
    frameNumber,
    receivedAt: t,
    rigidBodies: [body(1, 'pusher', 0.1), body(2, 'box', 0.2), body(3, 'table', 0)],
  };
}

export function planarPoses(frameNumber: number, t: number): PlanarPoses {
  const estimate = (rigidBody: string, x: number) => ({
    rigidBody,
    raw: {
      position: [x, 0.01 * t, 0.02] as [number, number, number],
      orientation: [0, 0, 0, 1] as [number, number, number, number],
    },
    repeated: null,
    pose: { x, y: 0.01 * t, theta: 0.1 },
    z: 0.02,
    poseTime: t,
    tracked: true,
    age: 0.004,
    stale: false,
    status: 'ok' as const,
  });
  return {
    frameNumber,
    pusher: estimate('pusher', -0.1),
    sliders: [{ ...estimate('box', 0), id: sliderIds[0]! }],
    ok: true,
  };
}

export function stateEvent(t: number): ConsoleEvent {
  const n = sliderIds.length;
  const state = Array.from({ length: 4 + 6 * n }, (_, i) => Math.sin(t + i) * 0.1);
  return { type: 'state', time: t, sliderIds: [...sliderIds], state };
}

export function plannerStep(step: number, t: number): PlannerStep {
  const n = sliderIds.length;
  const x = Array.from({ length: 4 + 6 * n }, (_, i) => 0.01 * i + step * 0.001);
  return {
    step,
    time: t,
    sliderIds: [...sliderIds],
    start: x,
    plan: [
      [0.02, 0],
      [0.02, 0.005],
      [0.015, 0.005],
      [0.01, 0],
    ],
    controlDuration: 1,
    predictions: [0, 1, 2].map((iteration) => ({
      iteration,
      states: Array.from({ length: 5 }, (_, k) => x.map((v) => v + 0.001 * k * (iteration + 1))),
    })),
    convergence: [
      { iteration: 1, translation: 0.004, rotation: 0.02 },
      { iteration: 2, translation: 0.0005, rotation: 0.002 },
    ],
    costs: [3.2, 2.9, 2.5],
    timings: { planning: 0.8, prediction: 0.6, workers: 4, theoreticalSpeedup: 2 },
  };
}

export const runStatus = (phase: RunStatus['phase'], reason: string | null = null): RunStatus => ({
  phase,
  mode: 'dry',
  reason,
  startedAt: 1_700_000_000,
  elapsed: 0,
  safety: 'safe',
  armed: phase === 'running',
});

/** A stream that dropped some frames, took some out of order and saw Motive restart once. */
export const mocapStats: MocapStats = {
  frames: 1440,
  frameRate: 119.8,
  droppedFrames: 12,
  olderFrames: 61,
  unconfirmedFrames: 0,
  repeatedFrames: 3,
  restarts: 1,
  systemLatency: 0.004,
  totalLatency: 0.0052,
  decodeErrors: 0,
  lastDecodeError: undefined,
  foreignPackets: 0,
  spoofSigns: 0,
  lastSpoofSign: undefined,
  roundTrip: 0.0003,
};

export const decision: Decision = {
  kind: 'command-refused',
  at: 1234.5,
  reason: { code: 'speed-limit', speed: 0.3, limit: 0.1 },
  message: 'Commanded speed 300 mm/s/s exceeds the limit 100 mm/s/s',
};

/** One message on every channel, in a fixed order; returns what was recorded per topic. */
/** What auto chose for the sample run's settings (auto) on two workers, as parareal/model-choice.ts says it. */
export const sampleModelChoice = {
  requested: 'auto',
  model: 'fine',
  workers: 2,
  reason:
    'auto: fine model (32 sequences fill 2 worker(s); Parareal at K >= 2 needs more fine work than that)',
} as const;

/** Step 0's prediction error: the object ended 4 mm and 2 deg from where the plan said. */
export const samplePredictionError = {
  step: 0,
  position: 0.004,
  yaw: 0.035,
  objects: [{ id: sliderIds[0]!, position: 0.004, yaw: 0.035 }],
};

export function recordEveryChannel(r: SessionRecorder): void {
  r.settings('dry', sampleScene, sampleSettings);
  r.setup(sampleSetup);
  r.event({ type: 'run', status: runStatus('running') });
  r.event({ type: 'lab', lab: sampleLab });
  r.operator('run.start', 'dry run from the console');
  r.model(sampleModelChoice);
  r.mocapFrame(mocapFrame(7, 0.5));
  r.poses(planarPoses(7, 0.5));
  r.mocapStats(mocapStats);
  r.robotState(robotState(0.5));
  r.command('twist', 42, 0.02, -0.01, 0.5);
  r.decision(decision);
  r.event({ type: 'supervisor', time: 0.5, decision: 'limit', reason: 'speed limited to 100 mm/s' });
  r.event(stateEvent(0.5));
  r.event({ type: 'planner-step', step: plannerStep(0, 0.5) });
  r.predictionError(samplePredictionError);
  r.event({ type: 'log', at: 1_700_000_000.5, level: 'warn', source: 'supervisor', message: 'limited' });
  r.outcome('success', null);
  r.event({ type: 'run', status: runStatus('finished', 'goal reached') });
}
