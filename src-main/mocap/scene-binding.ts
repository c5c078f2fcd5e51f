/**
 * From rigid bodies to the planar scene state the MPC loop uses: the pusher and each slider are
 * bound to a Motive rigid body by name; each pose is carried into the table frame through the
 * calibration, from the body's pivot to its object through the body's pivot offset
 * (calibration/pivots.ts), and reduced to (x, y, yaw). Every pose the console uses (planner,
 * supervisor, scene guard, log, Foxglove) comes from here. A body that is not tracked in the latest frame, or whose
 * last good pose is older than the limit, is reported as such: its last pose is kept for display
 * but `ok` is false, so nothing downstream can silently act on an old pose.
 *
 * A pose is as old as its first arrival: a frozen Motive that keeps sending the same frame (same
 * number, same poses), or new frame numbers with bit-identical poses, is stale after the limit like
 * a silent one, however fast the copies arrive. Camera measurements of a tracked body always jitter
 * (by hundredths of a millimetre at rest), so a pose repeated to the last bit was not measured
 * again. This needs `previous`, which carries the last frame number and raw poses.
 */
import { endEffectorOf, type ToolEntries } from '#contract/end-effector/registry';
import type { Scene } from '#contract/scene';
import { bodyOnTable, type Calibration } from '../calibration/mocap-table';
import type { Quat, Vec3 } from './messages/frame';
import { yawOf } from '../common/rotation';
import type { SpoofSign } from './spoof-signs';

export interface MocapBinding {
  /**
   * Rigid-body name of the robot (the pusher, or a gripper); undefined when its position comes from
   * the robot.
   */
  pusher?: string;
  sliders: { id: string; rigidBody?: string }[];
}

export function bindingFromScene(scene: ToolEntries & Pick<Scene, 'sliders'>): MocapBinding {
  const binding: MocapBinding = { sliders: scene.sliders.map((s) => ({ id: s.id, rigidBody: s.rigidBody })) };
  // The robot's body: the pusher's, or a gripper's (whose yaw is the pose's theta: its pivot at the
  // grasp centre, its x axis forward).
  const robot = endEffectorOf(scene).rigidBody;
  if (robot) binding.pusher = robot;
  return binding;
}

/** One rigid body of a frame, named through the model definitions. */
export interface NamedRigidBody {
  id: number;
  name: string | undefined;
  position: Vec3;
  orientation: Quat;
  meanError: number;
  trackingValid: boolean;
}

/** A decoded frame as the scene binding needs it: rigid bodies and when it arrived (local s). */
export interface MocapSnapshot {
  frameNumber: number;
  receivedAt: number;
  rigidBodies: NamedRigidBody[];
  /**
   * The server's own latency of the frame, s: camera mid-exposure to transmit, by its clock
   * (NatNet 3+; absent before SERVERINFO gave the clock's frequency). A frame the server sent late
   * says so here; one delivered or read late does not.
   */
  systemLatency?: number;
  /** A sign of a second sender the client saw at its sockets since the frame before (spoof-signs.ts). */
  suspect?: SpoofSign;
}

export type BodyStatus = 'ok' | 'untracked' | 'stale' | 'missing' | 'unbound';

/** A rigid body's pose as streamed, in the motion-capture frame: compared bit for bit. */
export interface RawPose {
  position: Vec3;
  orientation: Quat;
}

export interface BodyEstimate {
  rigidBody: string | undefined;
  /** The latest tracked pose as streamed; null if never tracked. */
  raw: RawPose | null;
  /**
   * What of the latest frame repeated the one before, so that it brought nothing new for this
   * body: its frame number, or (under a new number) its pose; null when it was new. A stale body
   * that repeats is frozen, not silent.
   */
  repeated: 'frame' | 'pose' | null;
  /** Last good pose in the table frame (m, m, rad), null if never seen. */
  pose: { x: number; y: number; theta: number } | null;
  /** Height of that pose above the table (m). */
  z: number | null;
  /** Local time (s) of the frame the pose came from. */
  poseTime: number | null;
  /** Tracked (present with the tracking-valid bit) in the latest frame. */
  tracked: boolean;
  age: number;
  /** Older than the limit (or never seen). */
  stale: boolean;
  status: BodyStatus;
}

export interface PlanarPoses {
  frameNumber: number;
  pusher: BodyEstimate;
  sliders: (BodyEstimate & { id: string })[];
  /** Every bound body is tracked and fresh. */
  ok: boolean;
  /**
   * The latest sign that the stream may be spoofed, when it was seen within SUSPECT_HOLD
   * (spoof-signs.ts): no run arms on such a stream, and a run stops on it. Set by the state
   * estimator, which judges the stream; absent otherwise.
   */
  suspect?: SpoofSign;
}

export interface PlanarPoseOptions {
  /** Local time (s) to judge staleness at; defaults to the snapshot's arrival. */
  now?: number;
  /** Poses older than this are stale (s). */
  maxAge?: number;
  /** The previous result, whose last good poses are carried while a body is untracked. */
  previous?: PlanarPoses;
}

export const DEFAULT_MAX_POSE_AGE = 0.1;

function estimate(
  name: string | undefined,
  snapshot: MocapSnapshot,
  calibration: Calibration,
  now: number,
  maxAge: number,
  previous: BodyEstimate | undefined,
  frameAdvanced: boolean,
): BodyEstimate {
  if (name === undefined) {
    return {
      rigidBody: undefined,
      raw: null,
      repeated: null,
      pose: null,
      z: null,
      poseTime: null,
      tracked: false,
      age: Infinity,
      stale: true,
      status: 'unbound',
    };
  }
  const rb = snapshot.rigidBodies.find((b) => b.name === name);
  const held = previous?.rigidBody === name ? previous : undefined;
  let pose = held?.pose ?? null;
  let z = held?.z ?? null;
  let poseTime = held?.poseTime ?? null;
  let raw = held?.raw ?? null;
  const tracked =
    rb !== undefined && rb.trackingValid && [...rb.position, ...rb.orientation].every(Number.isFinite);
  // A repeated frame number or a bit-identical pose carries nothing new: the held pose keeps its
  // time and ages on.
  const repeated = !tracked
    ? null
    : !frameAdvanced
      ? 'frame'
      : raw !== null && samePose(raw, rb)
        ? 'pose'
        : null;
  if (tracked && repeated === null) {
    // The object's pose, not the pivot's: the body's pivot offset is applied here, once.
    const o = bodyOnTable(calibration, name, rb.position, rb.orientation);
    pose = { x: o.position[0], y: o.position[1], theta: yawOf(o.orientation) };
    z = o.position[2];
    poseTime = snapshot.receivedAt;
    raw = { position: rb.position, orientation: rb.orientation };
  }
  const age = poseTime === null ? Infinity : Math.max(0, now - poseTime);
  const stale = !(age <= maxAge);
  const status: BodyStatus = !tracked
    ? rb === undefined && pose === null
      ? 'missing'
      : 'untracked'
    : stale
      ? 'stale'
      : 'ok';
  return { rigidBody: name, raw, repeated, pose, z, poseTime, tracked, age, stale, status };
}

function samePose(a: RawPose, b: RawPose): boolean {
  return (
    a.position.every((v, i) => v === b.position[i]) && a.orientation.every((v, i) => v === b.orientation[i])
  );
}

/** Planar poses of the pusher and sliders from one frame (see the module comment). */
export function toPlanarPoses(
  snapshot: MocapSnapshot,
  binding: MocapBinding,
  calibration: Calibration,
  options: PlanarPoseOptions = {},
): PlanarPoses {
  const now = options.now ?? snapshot.receivedAt;
  const maxAge = options.maxAge ?? DEFAULT_MAX_POSE_AGE;
  const prev = options.previous;
  const advanced = prev === undefined || snapshot.frameNumber !== prev.frameNumber;
  const pusher = estimate(binding.pusher, snapshot, calibration, now, maxAge, prev?.pusher, advanced);
  const sliders = binding.sliders.map((s) => ({
    id: s.id,
    ...estimate(
      s.rigidBody,
      snapshot,
      calibration,
      now,
      maxAge,
      prev?.sliders.find((p) => p.id === s.id),
      advanced,
    ),
  }));
  const bound = [pusher, ...sliders].filter((b) => b.status !== 'unbound');
  return {
    frameNumber: snapshot.frameNumber,
    pusher,
    sliders,
    ok: bound.length > 0 && bound.every((b) => b.status === 'ok'),
  };
}

/** Re-judges ages at a later time (no new frame): poses go stale when frames stop arriving. */
export function ageTo(poses: PlanarPoses, now: number, maxAge = DEFAULT_MAX_POSE_AGE): PlanarPoses {
  const age = (b: BodyEstimate): BodyEstimate => {
    if (b.status === 'unbound') return b;
    const age = b.poseTime === null ? Infinity : Math.max(0, now - b.poseTime);
    const stale = !(age <= maxAge);
    const status: BodyStatus =
      b.status === 'ok' && stale ? 'stale' : b.status === 'stale' && !stale ? 'ok' : b.status;
    return { ...b, age, stale, status };
  };
  const pusher = age(poses.pusher);
  const sliders = poses.sliders.map((s) => ({ ...s, ...age(s) }));
  const bound = [pusher, ...sliders].filter((b) => b.status !== 'unbound');
  return { ...poses, pusher, sliders, ok: bound.length > 0 && bound.every((b) => b.status === 'ok') };
}
