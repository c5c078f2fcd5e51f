/**
 * A short jog of the arm, for the calibration wizard: the tool moved a few millimetres along an
 * axis of the robot base, as the teach pendant's jog does. It goes to the arm the way every run
 * does (the control program's speed command over RTDE, refreshed well within the program's
 * watchdog, then its stop), so it moves a real arm and the virtual lab's alike; the console has
 * no other way to the arm. It runs where the robot link lives, in the safety thread
 * (lab-link/safety-thread), which refuses it while a run is armed. Kept slow and short, only from
 * a robot that runs normally with the program waiting, and stopped by Abort: a jog the operator
 * watches, not a plan.
 */
import { monotonicSeconds } from '../common/clock';
import { programPlaying, type RobotState } from './robot-state';
import { cross, mulVec, rotationFromVector } from '../common/rotation';
import type { Ur5Connection } from './ur5-connection';
import { every } from '../common/timers';

/** Jog speed, m/s: slow enough to watch and to stop by hand (the pendant's fine jog is similar). */
export const JOG_SPEED = 0.02;
/** Longest jog, m: a jog brings the tip to a point, a longer way is the operator's on the pendant. */
export const MAX_JOG = 0.05;
/** Acceleration to and from the jog speed, m/s^2 (gentle: 0.02 m/s is reached within 0.2 mm). */
const JOG_ACCELERATION = 1;
/**
 * The arm must gain this much along the jog (m) within STALL_AFTER, or the jog stops as not followed.
 * Judged on progress, not on the nominal time: a controller slowed by its speed slider (or a
 * virtual one on a loaded machine) still finishes, one that does not move is stopped.
 */
const PROGRESS = 0.0005;
const STALL_AFTER = 1.5;

export class JogRefused extends Error {
  override name = 'JogRefused';
}

/** What a jog needs of the robot connection. */
export type JogRobot = Pick<Ur5Connection, 'sendTwist' | 'stop' | 'linkUp' | 'latest' | 'settings'>;

export interface JogOptions {
  /** Refresh period of the speed command, s (default: a quarter of the program's watchdog). */
  refresh?: number;
  /** Aborts the jog: the arm is stopped at once. */
  signal?: AbortSignal;
}

/** Why the robot cannot be jogged now; null when it can. */
export function jogRefusal(robot: JogRobot): string | null {
  if (!robot.linkUp) return 'the RTDE link to the UR5 is down';
  const s = robot.latest;
  if (!s) return 'no robot state received yet';
  if (s.safetyMode !== 'NORMAL') return `the robot's safety mode is ${s.safetyMode}: recover it first`;
  if (s.robotMode !== 'RUNNING') return `the robot is ${s.robotMode}, not RUNNING`;
  if (!programPlaying(s)) return 'the control program is not running on the controller';
  return null;
}

/**
 * Moves the tool by (dx, dy) m in the robot base frame, at JOG_SPEED, and stops; resolves with
 * the distance the tool moved (m). Refuses a step longer than MAX_JOG or a robot that is not
 * ready; fails, with the arm stopped, when the arm does not follow or the jog is aborted.
 */
export async function jogTool(
  robot: JogRobot,
  dx: number,
  dy: number,
  options: JogOptions = {},
): Promise<number> {
  const distance = Math.hypot(dx, dy);
  if (!Number.isFinite(distance) || distance === 0) throw new JogRefused('a jog needs a direction');
  if (distance > MAX_JOG + 1e-9)
    throw new JogRefused(`a jog moves at most ${MAX_JOG * 1000} mm, not ${(distance * 1000).toFixed(1)} mm`);
  const refusal = jogRefusal(robot);
  if (refusal) throw new JogRefused(refusal);
  const start = robot.latest!.tcpPose;
  const ux = dx / distance;
  const uy = dy / distance;
  /** How far along the jog's direction the tool is now. */
  const along = (s: RobotState): number =>
    (s.tcpPose[0]! - start[0]!) * ux + (s.tcpPose[1]! - start[1]!) * uy;
  // Stop commanding where the ramp down ends on the point.
  const braking = (JOG_SPEED * JOG_SPEED) / (2 * JOG_ACCELERATION);
  await moveUntil(robot, options, {
    word: 'jog',
    progress: along,
    until: distance - braking,
    least: PROGRESS,
    command: () => robot.sendTwist(ux * JOG_SPEED, uy * JOG_SPEED, JOG_ACCELERATION),
  });
  return Math.max(0, along(robot.latest!));
}

/** One motion of the tool (a jog, a turn) as moveUntil drives it. */
interface ToolMotion {
  /** Its word in messages. */
  word: 'jog' | 'turn';
  /** How far the tool has come along it in state s (m, rad). */
  progress(s: RobotState): number;
  /** The progress at which commanding stops (the ramp down ends on the target). */
  until: number;
  /** The least gain of progress within STALL_AFTER, else the motion stops as not followed. */
  least: number;
  /** Sends its speed command for state s (one refresh). */
  command(s: RobotState): void;
}

/**
 * Drives `motion` to its end: its speed command refreshed every `refresh` (default a quarter of
 * the program's watchdog) until its progress reaches `until`, then a stop, and waits for the tool
 * to come to rest. Fails, with the arm stopped, when the robot
 * is no longer ready, the arm does not follow, or `options.signal` aborts.
 */
async function moveUntil(robot: JogRobot, options: JogOptions, motion: ToolMotion): Promise<void> {
  const refresh = options.refresh ?? robot.settings.watchdogTimeout / 4;
  let progress = { value: 0, at: monotonicSeconds() };
  try {
    await new Promise<void>((resolve, reject) => {
      const tick = (): void => {
        if (options.signal?.aborted) return finish(new JogRefused(`the ${motion.word} was aborted`));
        const problem = jogRefusal(robot);
        if (problem) return finish(new JogRefused(`${motion.word} stopped: ${problem}`));
        const state = robot.latest!;
        const now = motion.progress(state);
        if (now >= motion.until) return finish();
        if (now > progress.value + motion.least) progress = { value: now, at: monotonicSeconds() };
        else if (monotonicSeconds() - progress.at > STALL_AFTER)
          return finish(
            new JogRefused(
              `the arm did not follow the ${motion.word} (no progress for ${STALL_AFTER} s; control program ${state.program.state}, speed scaling ${state.speedScaling.toFixed(2)}): stopped`,
            ),
          );
        // A program waiting for its re-arm (or tripped by its watchdog when this process stalled
        // past it, which a loaded machine can do) ignores a motion command until a zero command
        // re-arms it, as at the start of every run: send that, then the motion.
        const program = state.program.state;
        if (program === 'WAIT_REARM' || program === 'TRIPPED') robot.stop();
        else motion.command(state);
      };
      const timer = every(refresh, tick);
      const onAbort = (): void => finish(new JogRefused(`the ${motion.word} was aborted`));
      options.signal?.addEventListener('abort', onAbort, { once: true });
      const finish = (err?: Error): void => {
        clearInterval(timer);
        options.signal?.removeEventListener('abort', onAbort);
        robot.stop();
        if (err) reject(err);
        else resolve();
      };
      tick();
    });
  } finally {
    // Whatever ended the motion, the last word to the arm is a stop (the connection keeps it fresh).
    robot.stop();
  }
  await settled(robot, refresh);
}

/** Resolves once the tool has come to rest (or after a second: the stop is the program's then). */
function settled(robot: JogRobot, poll: number): Promise<void> {
  const until = monotonicSeconds() + 1;
  return new Promise((resolve) => {
    const timer = every(poll, () => {
      const v = robot.latest?.tcpSpeed ?? [0, 0, 0];
      const turning = Math.hypot(v[3] ?? 0, v[4] ?? 0, v[5] ?? 0);
      if ((Math.hypot(v[0]!, v[1]!, v[2]!) < 0.001 && turning < 0.01) || monotonicSeconds() > until) {
        clearInterval(timer);
        resolve();
      }
    });
  });
}

/** Turn rate of a tool turn, rad/s (about 20 deg/s: a turn the operator watches). */
export const TURN_RATE = 0.35;
/** Largest tool turn, rad (90 deg): the calibration's turns are 30 deg apart. */
export const MAX_TURN = Math.PI / 2;
const TURN_ACCELERATION = 1;
/** The tool must turn this much (rad) within STALL_AFTER, or the turn stops as not followed. */
const TURN_PROGRESS = 0.005;

/** The tool's yaw about base z (rad): the heading of its x axis seen from above. */
function toolYaw(tcpPose: readonly number[]): number {
  const R = rotationFromVector(tcpPose.slice(3));
  return Math.atan2(R[1][0], R[0][0]);
}

/**
 * Turns the tool by `angle` rad about the vertical through the pusher's tip (the tool point
 * `pusherOffset` from the TCP, tool frame), at TURN_RATE, and stops; the tip stays put while the
 * TCP swings round it (for the calibration wizard's pivot measurement). Resolves with the angle
 * turned (rad, signed). Same refusals and stops as a jog.
 */
export async function turnTool(
  robot: JogRobot,
  angle: number,
  pusherOffset: readonly number[],
  options: JogOptions = {},
): Promise<number> {
  if (!Number.isFinite(angle) || angle === 0) throw new JogRefused('a turn needs an angle');
  if (Math.abs(angle) > MAX_TURN + 1e-9)
    throw new JogRefused(
      `a turn is at most ${((MAX_TURN * 180) / Math.PI).toFixed(0)} deg, not ${((Math.abs(angle) * 180) / Math.PI).toFixed(0)} deg`,
    );
  const refusal = jogRefusal(robot);
  if (refusal) throw new JogRefused(refusal);
  const start = toolYaw(robot.latest!.tcpPose);
  const sign = Math.sign(angle);
  const turned = (s: RobotState): number => {
    const d = toolYaw(s.tcpPose) - start;
    return Math.atan2(Math.sin(d), Math.cos(d)) * sign;
  };
  const braking = (TURN_RATE * TURN_RATE) / (2 * TURN_ACCELERATION);
  await moveUntil(robot, options, {
    word: 'turn',
    progress: turned,
    until: Math.abs(angle) - braking,
    least: TURN_PROGRESS,
    command: (state) => {
      // The TCP swings round the tip: its velocity cancels the turn's at the tip.
      const rate = sign * TURN_RATE;
      const arm = mulVec(rotationFromVector(state.tcpPose.slice(3)), pusherOffset);
      const swing = cross([0, 0, rate], arm);
      robot.sendTwist(-swing[0], -swing[1], JOG_ACCELERATION, { rate, acceleration: TURN_ACCELERATION });
    },
  });
  return sign * turned(robot.latest!);
}
