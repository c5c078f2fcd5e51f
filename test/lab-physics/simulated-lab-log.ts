/**
 * Session logs of lab runs with a known truth, written fast: the world (a FineModel of the world
 * scene, at its own fine settings) is pushed through a list of controls the way the lab executes them (the
 * supervisor streams each control's twist every 8 ms for 1 s, the arm accelerates and stops at a
 * finite acceleration, the plant waits for it to stand still), and the recorder writes what a lab
 * run records: the model scene and settings, the lab's setup (robot base turned on the table),
 * the robot's state in its base frame, the commands, the planner's steps (with the model scene's
 * own fine prediction) and the observed states, optionally late and noisy as motion capture is.
 */
import { pusherFriction } from '#contract/end-effector/pusher';
import { monotonicSeconds } from '../../src-main/common/clock';
import type { LabView } from '#contract/lab-view';
import { defaultPlannerSettings } from '#contract/planner-settings';
import type { Scene } from '#contract/scene';
import { initialState, type State } from '#contract/state';
import { FineModel } from '#physics/fine-model';
import { Rng } from '../../src-main/common/rng';
import {
  decodeBits,
  ROBOT_STATUS_BITS,
  SAFETY_STATUS_BITS,
} from '../../src-main/robot/rtde/robot-state-codes';
import {
  loggedPlannerStep,
  namedState,
  tcpPoseFields,
  tcpSpeedFields,
} from '../../src-main/session/named-state';
import { SessionRecorder } from '../../src-main/session/recorder';
import { openTableScene } from '../helpers/scenes';

export interface SimulatedLogOptions {
  dir: string;
  /** The physics the objects obey. */
  world: Scene;
  /** The scene the run planned with (what the log records). */
  model: Scene;
  /** Table-frame pusher velocities, one per 1 s control. */
  controls: [number, number][];
  /** Motion capture this late (s). */
  latency?: number;
  /** Standard deviation of the observed positions (m); yaw gets noise / 0.05 m rad. */
  noise?: number;
  seed?: number;
  /** Leave out the robot's state (as a simulated run's log has none). */
  withoutRobotState?: boolean;
  /** Stop recording this long into the last control (s): a run cut while moving. */
  cutLastControlAt?: number;
}

/** The robot base on the table: 0.55 m behind the table's left edge's middle, turned 30 deg. */
export const ROBOT_BASE = { x: -0.55, y: 0.1, yaw: Math.PI / 6 };
const ACCELERATION = 0.5;
const COMMAND_PERIOD = 0.008;
const ROBOT_PERIOD = 0.004;
const MOCAP_PERIOD = 1 / 30;
const PLANNING = 0.25;
const SETTLE = 0.2;
const DT = 1;

/** One box pushed off-centre on an open table: it turns and slides along the pusher. */
export function boxScene(): Scene {
  const base = openTableScene(1);
  const slider = base.sliders[0]!;
  return {
    ...base,
    name: 'physics-fit-box',
    // The planner's prediction settings: the world and the fit step alike, and fast.
    fine: { integrator: 'Euler', timestep: 0.002 },
    pusher: { ...base.pusher!, position: { x: -0.26, y: 0.015 } },
    sliders: [
      {
        ...slider,
        shape: { kind: 'box', sizeX: 0.08, sizeY: 0.08, height: 0.04 },
        pose: { x: -0.18, y: 0, theta: 0 },
      },
    ],
  };
}

/**
 * The controls of a short probing run: off-centre pushes that turn the box both ways, oblique
 * enough (16-22 deg) that the pusher slides along the box at the scene's friction and sticks at a
 * higher one.
 */
export const PROBE_CONTROLS: [number, number][] = [
  [0.05, 0],
  [0.04, 0.012],
  [0.04, -0.012],
  [0.04, 0.016],
  [0.04, -0.016],
];

/** A scene with its objects' mass and friction, the table's and the pusher's friction scaled. */
export function scaledPhysics(
  scene: Scene,
  k: { mass?: number; friction?: number; table?: number; pusher?: number },
): Scene {
  return {
    ...scene,
    ...(scene.pusher
      ? { pusher: { ...scene.pusher, friction: pusherFriction(scene.pusher) * (k.pusher ?? 1) } }
      : {}),
    table: { ...scene.table, friction: scene.table.friction * (k.table ?? 1) },
    sliders: scene.sliders.map((s) => ({
      ...s,
      mass: s.mass * (k.mass ?? 1),
      friction: s.friction * (k.friction ?? 1),
    })),
  };
}

function robotStatePayload(t: number, tool: [number, number], speed: [number, number]) {
  return {
    timestamp: t,
    receivedAt: t,
    tcpPose: tcpPoseFields([tool[0], tool[1], 0.05, 0, Math.PI, 0]),
    tcpSpeed: tcpSpeedFields([speed[0], speed[1], 0, 0, 0, 0]),
    robotMode: 'RUNNING',
    safetyMode: 'NORMAL',
    runtimeState: 'PLAYING',
    robotStatus: decodeBits(0b11, ROBOT_STATUS_BITS),
    safetyStatus: decodeBits(0b1, SAFETY_STATUS_BITS),
    speedScaling: 1,
    program: { ackSequence: Math.floor(t * 125), state: 'RUNNING', heartbeat: Math.floor(t * 500) },
  } as const;
}

/** Writes the log; returns its path. */
export async function simulatedLabLog(o: SimulatedLogOptions): Promise<string> {
  const world = await FineModel.create(o.world);
  const predictor = await FineModel.create(o.model);
  const rng = new Rng(o.seed ?? 1);
  const ids = o.world.sliders.map((s) => s.id);
  const rec = await SessionRecorder.create({
    dir: o.dir,
    label: 'dry',
    origin: 'headless',
    flushInterval: 60,
  });
  const t0 = monotonicSeconds();
  const at = (t: number): number => t0 + t;
  const base = ROBOT_BASE;
  const c = Math.cos(base.yaw);
  const s = Math.sin(base.yaw);
  const toBase = (x: number, y: number): [number, number] => [
    c * (x - base.x) + s * (y - base.y),
    -s * (x - base.x) + c * (y - base.y),
  ];
  const toBaseVelocity = (vx: number, vy: number): [number, number] => [c * vx + s * vy, -s * vx + c * vy];

  rec.record('/session/settings', { mode: 'dry', scene: o.model, settings: defaultPlannerSettings }, at(0));
  const lab: LabView = {
    kind: 'virtual',
    description: 'simulated lab',
    connected: true,
    robot: 'URSoftware 5.11.0.0 (virtual)',
    mocap: 'Parapush virtual Motive',
    scene: o.model.name,
    setup: {
      name: 'simulated',
      table: { x: o.world.table.size.x, y: o.world.table.size.y },
      workspaceMargin: 0.02,
      robotBase: base,
      mocapFrame: { x: 0, y: 0, yaw: 0 },
    },
  };
  rec.record('/session/lab', { lab }, at(0));

  // The world's history at every time step, for late observations.
  const step = world.timestep;
  const history: State[] = [];
  world.writeState(initialState(o.world));
  history.push(world.readState());
  let t = 0;
  let nextRobot = 0;
  let nextMocap = 0;
  let sequence = 0;
  const latency = o.latency ?? 0;
  const noise = o.noise ?? 0;
  const observe = (time: number): State => {
    const k = Math.max(0, Math.min(history.length - 1, Math.round((time - latency) / step)));
    const x = Float64Array.from(history[k]!);
    for (let i = 0; i < ids.length; i++) {
      const p = 2 + 3 * i;
      x[p] = x[p]! + noise * rng.normal();
      x[p + 1] = x[p + 1]! + noise * rng.normal();
      x[p + 2] = x[p + 2]! + (noise / 0.05) * rng.normal();
    }
    x.fill(0, 2 + 3 * ids.length);
    return x;
  };
  let velocity: [number, number] = [0, 0];
  /** Advances the world one time step with the tool's velocity; records what is due. */
  const tick = (target: [number, number]): void => {
    const dv = ACCELERATION * step;
    velocity = [
      velocity[0] + Math.max(-dv, Math.min(dv, target[0] - velocity[0])),
      velocity[1] + Math.max(-dv, Math.min(dv, target[1] - velocity[1])),
    ];
    world.setControl(velocity);
    world.advance(1);
    history.push(world.readState());
    t = (history.length - 1) * step;
    if (!o.withoutRobotState && t >= nextRobot) {
      nextRobot += ROBOT_PERIOD;
      const x = history[history.length - 1]!;
      rec.record(
        '/robot/state',
        robotStatePayload(t, toBase(x[0]!, x[1]!), toBaseVelocity(...velocity)),
        at(t),
      );
    }
    if (t >= nextMocap) {
      nextMocap += MOCAP_PERIOD;
      rec.record('/scene/state', { time: t, ...namedState(ids, Array.from(observe(t))) }, at(t));
    }
  };
  const last = o.controls.length - 1;
  for (const [k, u] of o.controls.entries()) {
    const start = observe(t);
    const predicted = predictor.step(start, u, DT);
    const plannerStep = loggedPlannerStep({
      step: k,
      time: t,
      sliderIds: ids,
      start: Array.from(start),
      plan: [u],
      controlDuration: DT,
      predictions: [{ iteration: 0, states: [Array.from(start), Array.from(predicted)] }],
      convergence: [],
      costs: [1],
      timings: { planning: PLANNING, prediction: PLANNING, workers: 2, theoreticalSpeedup: 1 },
    });
    rec.record('/planner/step', plannerStep, at(t));
    for (let i = 0; i < Math.round(PLANNING / step); i++) tick([0, 0]);
    const commandStart = t;
    let nextCommand = t;
    const [bx, by] = toBaseVelocity(u[0], u[1]);
    for (let i = 0; i < Math.round(DT / step); i++) {
      if (t >= nextCommand) {
        nextCommand += COMMAND_PERIOD;
        rec.record(
          '/robot/command',
          { kind: 'twist', sequence: sequence++, vx: bx, vy: by, acceleration: ACCELERATION },
          at(t),
        );
      }
      tick(u);
      if (k === last && o.cutLastControlAt !== undefined && t - commandStart >= o.cutLastControlAt) break;
    }
    if (k === last && o.cutLastControlAt !== undefined) break;
    rec.record(
      '/robot/command',
      { kind: 'stop', sequence: sequence++, vx: 0, vy: 0, acceleration: ACCELERATION },
      at(t),
    );
    for (let i = 0; i < Math.round(SETTLE / step); i++) tick([0, 0]);
  }
  world.dispose();
  predictor.dispose();
  await rec.close();
  return rec.file;
}
