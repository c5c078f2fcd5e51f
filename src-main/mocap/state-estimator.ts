/**
 * The one state estimator: motion-capture frames in, the table's state out, timestamped and
 * judged for staleness. Every run (a console dry or real run, `parapush run`) observes the table
 * through it, and the live view shows what it says, so the planner and the operator see the same
 * state. The lab link owns one per connection (lab-link/lab-link.ts).
 *
 * Each frame goes through the scene binding (scene-binding.ts: calibration, planar poses, the
 * freeze test that needs the previous frame); between frames the latest poses are re-judged at
 * the moment they are asked for, so they go stale when frames stop arriving. The state vector is
 * in the scene's layout (contract/state.ts) with zero velocities: the arm holds still while the
 * planner plans, and the objects come to rest under friction within a fraction of a second. A
 * pusher without markers is placed by the robot (the caller says how); a body that has never been
 * seen leaves no state at all, never a guess. A gripper's pose (with its yaw) comes from its rigid
 * body like the pusher's, and its opening from the gripper itself (`gripperOpening`): no camera
 * sees the gap between the fingers. Staleness is reported, not acted on: stopping on it
 * is the supervisor's job.
 */
import type { State, StateLayout } from '#contract/state';
import type { Calibration } from '../calibration/mocap-table';
import { monotonicSeconds } from '../common/clock';
import { bodiesFingerprint, FrameOrder } from './frame-order';
import { latestSign, recentSign, type SpoofSign } from './spoof-signs';
import {
  ageTo,
  toPlanarPoses,
  type MocapBinding,
  type MocapSnapshot,
  type PlanarPoses,
} from './scene-binding';

/**
 * Where the robot puts the pusher (or a gripper's grasp centre) on the table (m), and a gripper's
 * yaw (rad), for setups whose tool carries no markers.
 */
export type PusherFromRobot = () => { x: number; y: number; yaw?: number } | undefined;

/** A gripper's opening as the gripper reports it (m), undefined before its first reading. */
export type GripperOpening = () => number | undefined;

/** The table at one moment: its poses with their ages, and the state they give (or why none). */
export type TableEstimate = {
  /** Local time (s, the motion-capture clock) the estimate is judged at. */
  at: number;
  /**
   * Each body's last good pose, its age and status at `at`; `ok` when every bound body is tracked
   * and fresh. Undefined before the first frame.
   */
  poses: PlanarPoses | undefined;
} & ({ state: State; missing: null } | { state: null; missing: string });

/** The estimate `poses` give at `at`: the state vector, or which position is unknown. */
export function tableEstimate(
  layout: StateLayout,
  poses: PlanarPoses | undefined,
  at: number,
  pusherFromRobot?: PusherFromRobot,
  gripperOpening?: GripperOpening,
): TableEstimate {
  const none = (missing: string): TableEstimate => ({ at, poses, state: null, missing });
  if (!poses) return none('no motion-capture frame to observe the table from');
  const seen = poses.pusher.pose;
  const pusher = seen ? { x: seen.x, y: seen.y, yaw: seen.theta } : pusherFromRobot?.();
  const robot = layout.robot;
  if (!pusher) return none(`the ${robot} position is known neither from motion capture nor from the robot`);
  const x = layout.create();
  layout.setPusher(x, pusher.x, pusher.y);
  const { yaw, opening } = layout.tool;
  if (yaw !== undefined) {
    if (pusher.yaw === undefined)
      return none(`the ${robot}'s yaw is known neither from motion capture nor from the robot`);
    x[yaw] = pusher.yaw;
  }
  if (opening !== undefined) {
    const gap = gripperOpening?.();
    if (gap === undefined)
      return none(`the ${robot}'s opening is unknown: no position read from the gripper yet`);
    x[opening] = gap;
  }
  for (const [i, s] of poses.sliders.entries()) {
    if (!s.pose) return none(`no pose for ${s.id} (${s.rigidBody ?? 'no rigid body bound'})`);
    layout.setSlider(x, i, s.pose);
  }
  return { at, poses, state: x, missing: null };
}

export interface StateEstimatorOptions {
  binding: MocapBinding;
  layout: StateLayout;
  /** The motion-capture calibration, read at each frame (a newly saved setup applies at once). */
  calibration: () => Calibration;
  /** A gripper's opening as the gripper reports it (gripper scenes). */
  gripperOpening?: GripperOpening;
  /** Local time (s); the motion-capture clock by default. */
  clock?: () => number;
}

export class StateEstimator {
  private latest: PlanarPoses | undefined;
  private readonly clock: () => number;
  private readonly order = new FrameOrder();
  /** The latest sign of a second sender: the client's, or this estimator's own order judgement. */
  private sign: SpoofSign | undefined;

  constructor(private readonly o: StateEstimatorOptions) {
    this.clock = o.clock ?? monotonicSeconds;
  }

  get layout(): StateLayout {
    return this.o.layout;
  }

  /**
   * Takes one decoded frame; returns its poses, judged at its arrival. A frame of another
   * numbering (frame-order.ts: older than the newest, or far ahead of it and not confirmed) is
   * dropped: the latest poses come back aged to its arrival, so a replayed or reordered stream
   * goes stale like a silent one, and a sender that numbers its frames ahead moves no pose. A sign
   * of a second sender (the client's, or two numberings at once, or one number with two
   * contents) comes back on the poses as `suspect` for SUSPECT_HOLD.
   */
  frame(snapshot: MocapSnapshot): PlanarPoses {
    const at = snapshot.receivedAt;
    this.sign = latestSign(this.sign, snapshot.suspect);
    const verdict = this.order.judge(snapshot.frameNumber, at, bodiesFingerprint(snapshot.rigidBodies));
    if (this.order.sign) this.sign = { ...this.order.sign, at };
    if ((verdict === 'old' || verdict === 'unconfirmed') && this.latest)
      return this.judged(ageTo(this.latest, at), at);
    if (verdict === 'old' || verdict === 'unconfirmed') return this.judged(this.unseen(snapshot), at);
    this.latest = toPlanarPoses(snapshot, this.o.binding, this.o.calibration(), { previous: this.latest });
    return this.judged(this.latest, at);
  }

  /**
   * Poses before any frame was taken: every bound body as never seen (a dropped first frame moves
   * nothing).
   */
  private unseen(snapshot: MocapSnapshot): PlanarPoses {
    return toPlanarPoses({ ...snapshot, rigidBodies: [] }, this.o.binding, this.o.calibration());
  }

  /** `poses` with the latest sign of a second sender, if it is recent at `now`. */
  private judged(poses: PlanarPoses, now: number): PlanarPoses {
    const suspect = recentSign(this.sign, now);
    if (!suspect) {
      if (!poses.suspect) return poses;
      const { suspect: _old, ...rest } = poses;
      return rest;
    }
    return { ...poses, suspect };
  }

  /**
   * Frames dropped as older than the newest, dropped as too far ahead of it (unconfirmed), and
   * frames that repeated its number, so far.
   */
  get frameCounts(): { dropped: number; unconfirmed: number; repeated: number } {
    return {
      dropped: this.order.dropped,
      unconfirmed: this.order.unconfirmed,
      repeated: this.order.repeated,
    };
  }

  /** The latest poses re-judged at `now`: they go stale when frames stop arriving. */
  poses(now = this.clock()): PlanarPoses | undefined {
    return this.latest && this.judged(ageTo(this.latest, now), now);
  }

  /** The table at `now` (see tableEstimate); `pusherFromRobot` places a pusher motion capture does not. */
  estimate(pusherFromRobot?: PusherFromRobot, now = this.clock()): TableEstimate {
    return tableEstimate(this.o.layout, this.poses(now), now, pusherFromRobot, this.o.gripperOpening);
  }
}
