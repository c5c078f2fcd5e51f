/**
 * Motive's streaming up axis and length unit, judged from the rigid bodies that arrive, against the
 * up axis the lab setup was written and calibrated with (`mocap.upAxis`, a template's
 * `mocapUpAxis`). Motive streams Y-up by default and Z-up when its Settings > Streaming > Up Axis
 * says so [OptiTrack documentation, Data Streaming pane]; its positions are in metres (the pane's
 * Scale applies to skeletons only). A setup calibrated Y-up that receives a Z-up stream puts every
 * body somewhere else without any error, and so would positions in millimetres: both are named
 * here with their fix before anything moves.
 *
 * The up axis is read from the bodies' orientations. Motive gives a new rigid body the world's axes
 * at the moment it is created, and a body resting on the table (or a pusher held upright) only ever
 * turns about the vertical since: its orientation is a rotation about the stream's up axis, whatever
 * its yaw. A body at its creation yaw (a turn under MIN_TURN) says nothing, nor does one tilted off
 * every axis. The unit is read from the positions' size: a lab's capture volume is a room, so a
 * coordinate beyond ROOM is a body in millimetres (any body more than ROOM mm from Motive's origin).
 */
import type { UpAxis } from '../calibration/axes';
import type { NamedRigidBody } from './scene-binding';

/** A turn smaller than this (rad) shows no axis: the body is at its creation yaw, or nearly. */
const MIN_TURN = (5 * Math.PI) / 180;
/** A turn's axis within this of a stream axis (rad) is about that axis. */
const AXIS_TOLERANCE = (10 * Math.PI) / 180;
/** Farther than this from Motive's origin (m) no body of a lab is: a room's size, with room to spare. */
export const ROOM = 30;

export const UP_AXIS_FIX = (setup: UpAxis): string =>
  `in Motive, Settings > Streaming > Up Axis: set ${setup.toUpperCase()} (the up axis this setup was written and calibrated with); or write a setup for ${setup === 'y' ? 'Z' : 'Y'}-up and calibrate it again`;

export const UNITS_FIX =
  'stream positions in metres, as Motive does by default: nothing between Motive and the console (a relay, a converter) may scale them; check that Motive streams rigid bodies, not skeletons';

export interface StreamedAxesJudgement {
  ok: boolean;
  reason: string;
  fix?: string;
}

/** The axis a body turns about in the stream ('x' for neither up axis), or undefined when it shows none. */
export function turnAxis(orientation: readonly number[]): 'x' | 'y' | 'z' | undefined {
  const [x, y, z, w] = orientation as [number, number, number, number];
  const s = Math.hypot(x, y, z);
  const turn = 2 * Math.atan2(s, Math.abs(w));
  if (turn < MIN_TURN) return undefined;
  const near = (c: number): boolean => Math.abs(c) / s >= Math.cos(AXIS_TOLERANCE);
  if (near(y)) return 'y';
  if (near(z)) return 'z';
  return 'x';
}

/** Judges the tracked bodies of one frame against the setup's up axis. */
export function judgeStreamedAxes(
  bodies: readonly Pick<NamedRigidBody, 'name' | 'position' | 'orientation' | 'trackingValid'>[],
  setupUp: UpAxis,
): StreamedAxesJudgement {
  const tracked = bodies.filter((b) => b.trackingValid);
  if (tracked.length === 0) return { ok: false, reason: 'no tracked rigid body to judge the stream by' };
  const far = tracked.find((b) => b.position.some((c) => Math.abs(c) > ROOM));
  if (far) {
    const m = Math.hypot(...far.position);
    return {
      ok: false,
      reason: `${far.name ?? 'a rigid body'} is ${m.toFixed(0)} units from Motive's origin, farther than any lab is in metres: positions arrive in millimetres`,
      fix: UNITS_FIX,
    };
  }
  const axes = tracked.map((b) => ({ name: b.name ?? 'a rigid body', axis: turnAxis(b.orientation) }));
  const shown = axes.filter((a) => a.axis === 'y' || a.axis === 'z');
  const other = setupUp === 'y' ? 'z' : 'y';
  const against = shown.filter((a) => a.axis === other);
  if (against.length > 0 && against.length >= shown.length - against.length) {
    const names = against.map((a) => a.name).join(', ');
    return {
      ok: false,
      reason: `Motive streams ${other.toUpperCase()}-up (${names} turn${against.length === 1 ? 's' : ''} about its ${other} axis), the setup is ${setupUp.toUpperCase()}-up: every pose would be read on the wrong axes`,
      fix: UP_AXIS_FIX(setupUp),
    };
  }
  const up = `${setupUp.toUpperCase()}-up`;
  if (shown.length === 0)
    return {
      ok: true,
      reason: `positions in metres; up axis not shown yet (every body at its creation yaw), taken as the setup's ${up}`,
    };
  return { ok: true, reason: `${up} as the setup, positions in metres` };
}
