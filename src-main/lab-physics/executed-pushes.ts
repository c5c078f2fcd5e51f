/**
 * The executed controls of a session log, each as the fine model needs it to be replayed: the
 * observed state when the robot started it, the robot's own motion during it (from /robot/state,
 * in the table frame, as piecewise-constant velocities), the observed state once the arm stood
 * still again, and the planner's own prediction of that end when the log holds it.
 *
 * A control is a burst of twist commands on /robot/command (the supervisor streams one control
 * every few ms for its duration, then stops): it starts at its first command and ends when the
 * tool has stood still after its last one. Observed states are /scene/state (the state estimator's
 * table, what the planner saw); their log time runs `latency` behind the world's when motion capture
 * is late, so they are read that much later. A pusher scene only: the gripper's motion is not
 * on the robot's state channel as a planar pose yet.
 */
import { endEffectorOf } from '#contract/end-effector/registry';
import type { PlannerSettings } from '#contract/planner-settings';
import type { Scene } from '#contract/scene';
import { sceneSchema } from '#contract/scene';
import { layoutForScene } from '#contract/state';
import type { PlanarFrame } from '#contract/lab-view';
import type { MessageOf } from '../session/channels';
import { stateVector, type NamedState } from '../session/named-state';
import { SessionLog, SessionLogError } from '../session/reader';
import { PIECE } from './prediction-error';

/** Why a log cannot be checked or fitted, naming what is missing. */
export class PhysicsLogError extends Error {
  override name = 'PhysicsLogError';
}

/** Tool speed under which the arm stands still (m/s). */
const AT_REST_SPEED = 0.001;
/** How long the arm must stand still before the end state is read (s), as the plant waits (run/robot-plant.ts). */
const SETTLE = 0.03;
/** Commands further apart than this (s) belong to different controls. */
const BURST_GAP = 0.1;

export interface TimedPoint {
  /** s since the log's first message. */
  t: number;
  x: number;
  y: number;
}

export interface TimedState {
  t: number;
  state: NamedState;
}

/** One executed control, ready to be replayed on the fine model. */
export interface ExecutedPush {
  /** 0-based index among the run's executed controls. */
  index: number;
  /** First command, s since the log's first message. */
  start: number;
  /** The arm at rest again for SETTLE: the end is observed from then (within the last piece). */
  end: number;
  /** The commanded velocity, table frame (m/s). */
  command: { vx: number; vy: number };
  /** The robot's motion: its table-frame velocity over each PIECE from `start`. */
  pieces: [number, number][];
  /** The state the planner predicted at the end of this control (its last iterate), when logged. */
  predictedEnd: NamedState | null;
}

/** What a log holds for replaying its controls. */
export interface LoggedPushes {
  file: string;
  scene: Scene;
  settings: PlannerSettings;
  /** The robot base in the table frame (from the run's setup). */
  robotBase: PlanarFrame;
  pushes: ExecutedPush[];
  /** Observed states, in log order. */
  states: TimedState[];
}

/** Reads a log's executed controls; throws PhysicsLogError naming what it lacks. */
export async function readLoggedPushes(file: string): Promise<LoggedPushes> {
  let log: SessionLog;
  try {
    log = await SessionLog.open(file);
  } catch (err) {
    throw new PhysicsLogError(describeOpenError(file, err));
  }
  try {
    return await readOpened(log);
  } catch (err) {
    if (err instanceof PhysicsLogError) throw err;
    if (err instanceof SessionLogError) throw new PhysicsLogError(err.message);
    throw err;
  } finally {
    await log.close();
  }
}

function describeOpenError(file: string, err: unknown): string {
  const message = (err as Error).message;
  return err instanceof SessionLogError && err.recoverable
    ? `${message} (its tail is missing: \`parapush log recover ${file}\` first)`
    : message;
}

async function readOpened(log: SessionLog): Promise<LoggedPushes> {
  const file = log.file;
  let first: bigint | null = null;
  const seconds = (t: bigint): number => Number(t - (first ?? t)) / 1e9;
  let settingsMessage: MessageOf<'/session/settings'> | null = null;
  let robotBase: PlanarFrame | null = null;
  const tool: TimedPoint[] = [];
  const toolSpeed: { t: number; speed: number }[] = [];
  const commands: { t: number; kind: 'twist' | 'stop'; vx: number; vy: number }[] = [];
  const steps: { t: number; step: MessageOf<'/planner/step'> }[] = [];
  const states: TimedState[] = [];
  for await (const m of log.messages([
    '/session/settings',
    '/session/lab',
    '/robot/state',
    '/robot/command',
    '/planner/step',
    '/scene/state',
  ])) {
    first ??= m.logTime;
    const t = seconds(m.logTime);
    switch (m.topic) {
      case '/session/settings':
        settingsMessage ??= m.message as MessageOf<'/session/settings'>;
        break;
      case '/session/lab': {
        const lab = (m.message as MessageOf<'/session/lab'>).lab;
        if (lab?.setup) robotBase = lab.setup.robotBase;
        break;
      }
      case '/robot/state': {
        const s = m.message as MessageOf<'/robot/state'>;
        tool.push({ t, x: s.tcpPose.x, y: s.tcpPose.y });
        toolSpeed.push({ t, speed: Math.hypot(s.tcpSpeed.vx, s.tcpSpeed.vy) });
        break;
      }
      case '/robot/command': {
        const c = m.message as MessageOf<'/robot/command'>;
        if (c.sequence !== null) commands.push({ t, kind: c.kind, vx: c.vx, vy: c.vy });
        break;
      }
      case '/planner/step':
        steps.push({ t, step: m.message as MessageOf<'/planner/step'> });
        break;
      case '/scene/state': {
        const { mono: _m, wall: _w, time: _t, ...state } = m.message as MessageOf<'/scene/state'>;
        states.push({ t, state });
        break;
      }
    }
  }
  if (!settingsMessage) throw new PhysicsLogError(`${file}: no /session/settings: the log names no scene`);
  const scene = sceneSchema.parse(settingsMessage.scene);
  if (endEffectorOf(scene).discRadius === undefined)
    throw new PhysicsLogError(`${file}: a gripper run; physics check and fit replay pusher runs only`);
  if (tool.length === 0)
    throw new PhysicsLogError(
      `${file}: no /robot/state messages: the log does not say how the robot moved (a simulated run, or a lab run cut before it moved?)`,
    );
  if (!robotBase)
    throw new PhysicsLogError(
      `${file}: no lab setup on /session/lab: the robot's motion cannot be placed on the table (a simulated run, not a lab run?)`,
    );
  if (commands.length === 0)
    throw new PhysicsLogError(`${file}: no /robot/command messages: nothing was executed`);
  if (states.length === 0)
    throw new PhysicsLogError(`${file}: no /scene/state messages: the log holds no observed state`);
  const ids = scene.sliders.map((s) => s.id).join(',');
  const logged = states[0]!.state.sliders.map((s) => s.id).join(',');
  if (ids !== logged)
    throw new PhysicsLogError(`${file}: its observed states hold objects ${logged}, its scene ${ids}`);
  const toTable = tableVelocity(robotBase);
  const pushes: ExecutedPush[] = [];
  for (const burst of bursts(commands)) {
    const lastTool = tool[tool.length - 1]!.t;
    const restAt = restAfter(toolSpeed, burst.last);
    // The robot's record ends before the arm stood still: a log cut short.
    if (restAt === null || restAt + SETTLE > lastTool) break;
    // Observed once the arm has stood still for SETTLE; the replay covers that in whole pieces,
    // the arm held where it stood from then on: the next control may start within the last piece,
    // and its motion is its own replay's, not this one's.
    const restedAt = restAt + SETTLE;
    const n = Math.max(1, Math.ceil((restedAt - burst.first) / PIECE));
    const toolUntil = (t: number): { x: number; y: number } => toolAt(tool, Math.min(t, restedAt));
    const pieces: [number, number][] = [];
    for (let j = 0; j < n; j++) {
      const a = toolUntil(burst.first + j * PIECE);
      const b = toolUntil(burst.first + (j + 1) * PIECE);
      pieces.push(toTable((b.x - a.x) / PIECE, (b.y - a.y) / PIECE));
    }
    const [vx, vy] = toTable(burst.vx, burst.vy);
    pushes.push({
      index: pushes.length,
      start: burst.first,
      end: restedAt,
      command: { vx, vy },
      pieces,
      predictedEnd: predictionFor(steps, burst.first, vx, vy),
    });
  }
  if (pushes.length === 0)
    throw new PhysicsLogError(
      `${file}: no executed control ends in the log (the robot's record stops before the arm stood still after the first one)`,
    );
  return { file, scene, settings: settingsMessage.settings, robotBase, pushes, states };
}

/** Base-frame velocity to table frame: rotated by the base's heading on the table. */
function tableVelocity(base: PlanarFrame): (vx: number, vy: number) => [number, number] {
  const c = Math.cos(base.yaw);
  const s = Math.sin(base.yaw);
  return (vx, vy) => [c * vx - s * vy, s * vx + c * vy];
}

interface Burst {
  first: number;
  last: number;
  vx: number;
  vy: number;
}

/** Runs of twist commands with one velocity, close together, that move the tool. */
function bursts(commands: readonly { t: number; kind: string; vx: number; vy: number }[]): Burst[] {
  const out: Burst[] = [];
  let current: Burst | null = null;
  for (const c of commands) {
    const moving = c.kind === 'twist' && Math.hypot(c.vx, c.vy) > 1e-6;
    const same =
      current !== null &&
      moving &&
      c.t - current.last <= BURST_GAP &&
      c.vx === current.vx &&
      c.vy === current.vy;
    if (same) current!.last = c.t;
    else {
      if (current) out.push(current);
      current = moving ? { first: c.t, last: c.t, vx: c.vx, vy: c.vy } : null;
    }
  }
  if (current) out.push(current);
  return out;
}

/** When the tool has stood still for SETTLE after `after`, s; null if the record ends first. */
function restAfter(speeds: readonly { t: number; speed: number }[], after: number): number | null {
  let since: number | null = null;
  for (const s of speeds) {
    if (s.t <= after) continue;
    since = s.speed < AT_REST_SPEED ? (since ?? s.t) : null;
    if (since !== null && s.t - since >= SETTLE) return since;
  }
  return null;
}

/** The tool's position at time t, linearly between the recorded states (held at the ends). */
export function toolAt(tool: readonly TimedPoint[], t: number): { x: number; y: number } {
  let lo = 0;
  let hi = tool.length - 1;
  if (t <= tool[0]!.t) return tool[0]!;
  if (t >= tool[hi]!.t) return tool[hi]!;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (tool[mid]!.t <= t) lo = mid;
    else hi = mid;
  }
  const a = tool[lo]!;
  const b = tool[hi]!;
  const f = (t - a.t) / (b.t - a.t);
  return { x: a.x + f * (b.x - a.x), y: a.y + f * (b.y - a.y) };
}

/**
 * The planner step that chose this control: the last one logged before it whose first control
 * is the commanded velocity (the supervisor sends a plan's velocity as it is, or scales a fast
 * one down: the direction is compared). Its last iterate's state after one control is the
 * planner's prediction of the end.
 */
function predictionFor(
  steps: readonly { t: number; step: MessageOf<'/planner/step'> }[],
  at: number,
  vx: number,
  vy: number,
): NamedState | null {
  for (let i = steps.length - 1; i >= 0; i--) {
    const { t, step } = steps[i]!;
    if (t > at) continue;
    const u = step.plan[0]!;
    const cross = u.vx * vy - u.vy * vx;
    const dot = u.vx * vx + u.vy * vy;
    if (dot <= 0 || Math.abs(cross) > 1e-3 * Math.hypot(u.vx, u.vy) * Math.hypot(vx, vy)) return null;
    const last = step.predictions[step.predictions.length - 1];
    return last?.states[1] ?? null;
  }
  return null;
}

/** Index of the last state at or before t (0 if none is). */
function lastAtOrBefore(states: readonly TimedState[], t: number): number {
  let lo = 0;
  let hi = states.length - 1;
  if (t < states[0]!.t) return 0;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (states[mid]!.t <= t) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * Stretch of rest on each side of a control averaged into its observed start and end (s). Between
 * two controls the table stands still; the frames of a short stretch next to the control see the
 * same poses, so their mean is the pose with the cameras' noise divided by the square root of their
 * number, where a single frame would carry it whole into every residual of a fit. Only a short
 * stretch: an object the pusher still leans on creeps on in MuJoCo's soft contacts (and on a real
 * table), and a long mean would read it later than the replay predicts it.
 */
const REST_AVERAGE = 0.2;

/** The observed state when executed control k started: the mean over the rest before it. */
export function observedStart(run: LoggedPushes, k: number, latency: number): number[] {
  const push = run.pushes[k]!;
  const previousEnd = k > 0 ? run.pushes[k - 1]!.end : -Infinity;
  return restingVector(run, Math.max(previousEnd, push.start - REST_AVERAGE), push.start, latency);
}

/** The observed state once executed control k ended: the mean over the rest after it. */
export function observedEnd(run: LoggedPushes, k: number, latency: number): number[] {
  const push = run.pushes[k]!;
  const nextStart = run.pushes[k + 1]?.start ?? Infinity;
  return restingVector(run, push.end, Math.min(nextStart, push.end + REST_AVERAGE), latency);
}

/**
 * The mean observed state over a rest from `from` to `to` (world time; the log's states are read
 * `latency` s later), as a state vector at rest (the run's estimates carry no velocities); angles
 * are averaged on the circle. With no state inside the rest, the last one before its end.
 */
function restingVector(run: LoggedPushes, from: number, to: number, latency: number): number[] {
  const states = run.states;
  const last = lastAtOrBefore(states, to + latency);
  const inside: number[][] = [];
  for (let i = last; i >= 0 && states[i]!.t >= from + latency && states[i]!.t <= to + latency; i--)
    inside.push(atRest(states[i]!.state));
  if (inside.length === 0) return atRest(states[last]!.state);
  const angles = new Set(layoutForScene(run.scene).angleIndices);
  return inside[0]!.map((_, j) => {
    if (angles.has(j)) {
      const s = inside.reduce((sum, v) => sum + Math.sin(v[j]!), 0);
      const c = inside.reduce((sum, v) => sum + Math.cos(v[j]!), 0);
      return Math.atan2(s, c);
    }
    return inside.reduce((sum, v) => sum + v[j]!, 0) / inside.length;
  });
}

/** A named observed state as a state vector with every velocity zero. */
function atRest(s: NamedState): number[] {
  return stateVector({
    ...(s.pusher ? { pusher: { ...s.pusher, vx: 0, vy: 0 } } : {}),
    sliders: s.sliders.map((b) => ({ ...b, vx: 0, vy: 0, omega: 0 })),
  });
}
