/**
 * Live measurements for the calibration wizard, read from the connected lab and never by moving
 * the arm: a rigid body's streamed pose (its pivot) averaged over a short window, the pusher's
 * point from it through the setup's pivot offset, and
 * the pusher point the UR5 reports (actual_TCP_pose carried through the pusher offset). Each
 * refuses, with the reason, when its source is untracked, stale or silent.
 */
import { monotonicSeconds } from '../common/clock';
import { mulVec, quatNormalize, rotationFromVector, type Quat, type Vec3 } from '../common/rotation';
import { bodyPointInMocap } from '../calibration/mocap-table';
import type { LabLink } from '../lab-link/lab-link';

export class CaptureRefused extends Error {
  override name = 'CaptureRefused';
}

export interface MocapCaptureOptions {
  /** How long to average over (s). */
  duration?: number;
  /** Fewer frames than this in the window means the stream is stalling. */
  minFrames?: number;
  /** Largest distance of any frame's position from the mean (m): more means the marker moved. */
  maxSpread?: number;
}

/** What a capture reads of the link (a LabLink provides all of it). */
export type CaptureLink = Pick<LabLink, 'natnet' | 'scene' | 'poses' | 'robot' | 'setup'>;

/**
 * The pusher's point in Motive's frame and up axis (m), averaged over the window: its body's pivot
 * carried through the setup's pivot offset for the body (calibration/pivots.ts), so that the fit
 * maps the pusher's tip, not its markers. Not the table pose: the fit is what turns one into the
 * other.
 */
export async function captureMocapPoint(link: CaptureLink, options: MocapCaptureOptions = {}): Promise<Vec3> {
  const body = link.scene.pusher?.rigidBody;
  if (!body) {
    throw new CaptureRefused('the scene binds no motion-capture rigid body to the pusher (pusher.rigidBody)');
  }
  const pose = await captureBodyPose(link, body, 'pusher', options);
  return bodyPointInMocap(link.setup.mocap, body, pose.position, pose.orientation);
}

/** A rigid body's streamed pose (its pivot, Motive's frame and up axis) averaged over a window. */
export interface BodyCapture {
  position: Vec3;
  orientation: Quat;
}

/**
 * A rigid body's raw pose as streamed (its pivot), averaged over the window; refused when the body
 * is not tracked, the stream stalls or the body moves. `what` is whose it is: `pusher` (the
 * robot's body) or a slider's id.
 */
export function captureBodyPose(
  link: CaptureLink,
  body: string,
  what: string,
  options: MocapCaptureOptions = {},
): Promise<BodyCapture> {
  const duration = options.duration ?? 0.5;
  const minFrames = options.minFrames ?? 5;
  const maxSpread = options.maxSpread ?? 0.002;
  const poses = link.poses();
  if (!poses) return Promise.reject(new CaptureRefused('no motion-capture frame received yet'));
  const now = what === 'pusher' ? poses.pusher : poses.sliders.find((b) => b.id === what);
  if (now && now.status !== 'ok') {
    const age = Number.isFinite(now.age) ? `, last seen ${(now.age * 1000).toFixed(0)} ms ago` : '';
    return Promise.reject(new CaptureRefused(`${what} rigid body "${body}" is ${now.status}${age}`));
  }
  return new Promise((resolve, reject) => {
    const seen: BodyCapture[] = [];
    let lost = 0;
    const off = link.natnet.on('frame', (_frame, snapshot) => {
      const rb = snapshot.rigidBodies.find((b) => b.name === body);
      if (rb && rb.trackingValid && [...rb.position, ...rb.orientation].every(Number.isFinite))
        seen.push({ position: [...rb.position], orientation: [...rb.orientation] });
      else lost++;
    });
    setTimeout(() => {
      off();
      const window = `${(duration * 1000).toFixed(0)} ms`;
      if (lost > 0)
        return reject(new CaptureRefused(`${what} rigid body "${body}" was untracked in ${lost} frame(s)`));
      if (seen.length < minFrames)
        return reject(new CaptureRefused(`only ${seen.length} frame(s) in ${window}: the stream is stale`));
      const mean = [0, 1, 2].map((k) => seen.reduce((s, p) => s + p.position[k]!, 0) / seen.length) as Vec3;
      const spread = Math.max(
        ...seen.map(({ position: p }) => Math.hypot(p[0] - mean[0], p[1] - mean[1], p[2] - mean[2])),
      );
      if (spread > maxSpread) {
        return reject(
          new CaptureRefused(
            `the ${what} moved ${(spread * 1000).toFixed(1)} mm during the capture (at most ${(maxSpread * 1000).toFixed(1)} mm): hold it still`,
          ),
        );
      }
      // Orientations this close average well component-wise (signs aligned with the first).
      const q0 = seen[0]!.orientation;
      const sum = [0, 0, 0, 0];
      for (const { orientation: q } of seen) {
        const sign = q.reduce((d, v, k) => d + v * q0[k]!, 0) < 0 ? -1 : 1;
        q.forEach((v, k) => (sum[k] = sum[k]! + sign * v));
      }
      resolve({ position: mean, orientation: quatNormalize(sum as Quat) });
    }, duration * 1000);
  });
}

/** Robot state older than this (s) is not the arm as it stands now (the supervisor's own limit). */
const ROBOT_STALE = 0.1;

/** The pusher point in the robot base frame (m): the reported tool pose plus the pusher offset. */
export function captureRobotPoint(link: CaptureLink): Vec3 {
  if (!link.robot.linkUp) throw new CaptureRefused('the RTDE link to the UR5 is down');
  const r = link.robot.latest;
  if (!r) throw new CaptureRefused('no robot state received yet');
  const age = monotonicSeconds() - r.receivedAt;
  if (age > ROBOT_STALE)
    throw new CaptureRefused(`the robot state is stale: none for ${(age * 1000).toFixed(0)} ms`);
  const arm = mulVec(rotationFromVector(r.tcpPose.slice(3)), link.setup.robot.pusherOffset);
  return [r.tcpPose[0]! + arm[0], r.tcpPose[1]! + arm[1], r.tcpPose[2]! + arm[2]];
}
