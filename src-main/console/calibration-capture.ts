/**
 * Live measurements for the calibration wizard, read from the connected lab and never by moving
 * the arm: the pusher rigid body's raw motion-capture position averaged over a short window, and
 * the pusher point the UR5 reports (actual_TCP_pose carried through the pusher offset). Each
 * refuses, with the reason, when its source is untracked, stale or silent.
 */
import { monotonicSeconds } from '#contract/time';
import { mulVec, rotationFromVector, type Vec3 } from '../common/rotation';
import type { LabLink } from '../lab-link/lab-link';

export class CaptureRefused extends Error {
  override name = 'CaptureRefused';
}

export interface MocapCaptureOptions {
  /** How long to average over (s). */
  durationS?: number;
  /** Fewer frames than this in the window means the stream is stalling. */
  minFrames?: number;
  /** Largest distance of any frame's position from the mean (m): more means the marker moved. */
  maxSpread?: number;
}

/** What a capture reads of the link (a LabLink provides all of it). */
export type CaptureLink = Pick<LabLink, 'natnet' | 'scene' | 'poses' | 'robot' | 'setup'>;

/**
 * The pusher body's raw position (Motive's frame and up axis, m) averaged over the window. The
 * raw position, not the table pose: the fit is what turns one into the other.
 */
export function captureMocapPoint(link: CaptureLink, options: MocapCaptureOptions = {}): Promise<Vec3> {
  const durationS = options.durationS ?? 0.5;
  const minFrames = options.minFrames ?? 5;
  const maxSpread = options.maxSpread ?? 0.002;
  const body = link.scene.pusher?.rigidBody;
  if (!body) {
    return Promise.reject(
      new CaptureRefused('the scene binds no motion-capture rigid body to the pusher (pusher.rigidBody)'),
    );
  }
  const now = link.poses()?.pusher;
  if (!now) return Promise.reject(new CaptureRefused('no motion-capture frame received yet'));
  if (now.status !== 'ok') {
    const age = Number.isFinite(now.ageS) ? `, last seen ${(now.ageS * 1000).toFixed(0)} ms ago` : '';
    return Promise.reject(new CaptureRefused(`pusher rigid body "${body}" is ${now.status}${age}`));
  }
  return new Promise((resolve, reject) => {
    const seen: Vec3[] = [];
    let lost = 0;
    const off = link.natnet.on('frame', (_frame, snapshot) => {
      const rb = snapshot.rigidBodies.find((b) => b.name === body);
      if (rb && rb.trackingValid && rb.position.every(Number.isFinite)) seen.push([...rb.position]);
      else lost++;
    });
    setTimeout(() => {
      off();
      const window = `${(durationS * 1000).toFixed(0)} ms`;
      if (lost > 0)
        return reject(new CaptureRefused(`pusher rigid body "${body}" was untracked in ${lost} frame(s)`));
      if (seen.length < minFrames)
        return reject(new CaptureRefused(`only ${seen.length} frame(s) in ${window}: the stream is stale`));
      const mean: Vec3 = [0, 1, 2].map((k) => seen.reduce((s, p) => s + p[k]!, 0) / seen.length) as Vec3;
      const spread = Math.max(...seen.map((p) => Math.hypot(p[0] - mean[0], p[1] - mean[1], p[2] - mean[2])));
      if (spread > maxSpread) {
        return reject(
          new CaptureRefused(
            `the pusher moved ${(spread * 1000).toFixed(1)} mm during the capture (at most ${(maxSpread * 1000).toFixed(1)} mm): hold it still`,
          ),
        );
      }
      resolve(mean);
    }, durationS * 1000);
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
