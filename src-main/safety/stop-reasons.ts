/**
 * Every way a supervised run can end or be refused, with the sentence the operator reads. The same
 * objects go to the event log, the status bar and the session log.
 */
import { z } from 'zod';
import { spoofSignKinds } from '../mocap/spoof-signs';

export const stopReasonSchema = z.discriminatedUnion('code', [
  z.object({ code: z.literal('operator-abort') }),
  z.object({ code: z.literal('mocap-stale'), body: z.string(), age: z.number().describe('s') }),
  z.object({ code: z.literal('mocap-untracked'), body: z.string() }),
  /**
   * Frames keep arriving but bring nothing new: their number does not advance, or a body's pose
   * repeats to the last bit (live cameras always jitter). Motive (or its network) froze.
   */
  z.object({
    code: z.literal('mocap-frozen'),
    body: z.string(),
    repeated: z.enum(['frame', 'pose']),
    frameNumber: z.number(),
    age: z.number().describe('s'),
  }),
  /**
   * The motion-capture stream showed a sign of a second sender posing as Motive
   * (mocap/spoof-signs.ts: packets from Motive's address on another port, messages nobody asked
   * for, two frame numberings at once, one number with two contents, a body moving faster than
   * anything on the table can). UDP proves no sender, so its poses cannot be trusted.
   */
  z.object({
    code: z.literal('mocap-suspect'),
    sign: z.enum(spoofSignKinds),
    detail: z.string(),
  }),
  z.object({ code: z.literal('protective-stop') }),
  z.object({ code: z.literal('emergency-stop') }),
  z.object({ code: z.literal('safety-fault'), mode: z.string() }),
  z.object({ code: z.literal('program-stopped'), runtimeState: z.string() }),
  z.object({ code: z.literal('robot-link-lost'), message: z.string() }),
  z.object({ code: z.literal('robot-state-stale'), age: z.number().describe('s') }),
  z.object({ code: z.literal('loop-stalled'), age: z.number().describe('s') }),
  z.object({ code: z.literal('speed-limit'), speed: z.number(), limit: z.number() }),
  /** A gripper's turn faster than allowed (a pusher's limit is 0: it never turns). rad/s. */
  z.object({ code: z.literal('yaw-rate-limit'), rate: z.number(), limit: z.number() }),
  /** A gripper's fingers commanded faster than allowed. m/s. */
  z.object({ code: z.literal('opening-speed-limit'), speed: z.number(), limit: z.number() }),
  z.object({ code: z.literal('workspace'), detail: z.string() }),
  /** A command whose lookahead takes the pusher (or gripper) within the clearance of an obstacle. m. */
  z.object({
    code: z.literal('obstacle-clearance'),
    obstacle: z.string(),
    gap: z.number(),
    clearance: z.number(),
  }),
  /**
   * Motion capture (or the robot, for a pusher without markers) shows a body touching an obstacle,
   * or an object pushed towards one closer than the arm can stop: `gap` is how far apart (m;
   * negative: that deep in).
   */
  z.object({
    code: z.literal('obstacle-contact'),
    body: z.string(),
    obstacle: z.string(),
    gap: z.number(),
  }),
  /**
   * An object's centre left the table top (it tips over the edge from there), or is pushed towards
   * the edge closer than the arm can stop: `excess` is how far past the edge (m; negative: short).
   */
  z.object({ code: z.literal('off-table'), body: z.string(), excess: z.number() }),
  /**
   * The pusher where motion capture sees it and where the robot's tool pose puts it (through both
   * calibrations) disagree by more than the limit: a calibration (or a marker) moved. m.
   */
  z.object({ code: z.literal('calibration-drift'), drift: z.number(), limit: z.number() }),
  /** A robot state or motion-capture pose with a NaN or infinite value. */
  z.object({ code: z.literal('non-finite'), source: z.string(), detail: z.string() }),
  z.object({ code: z.literal('pusher-lost'), detail: z.string() }),
  /** The gripper of a gripper scene faulted, lost its link or refused a finger command. */
  z.object({ code: z.literal('gripper-fault'), detail: z.string() }),
  z.object({ code: z.literal('task-ended'), outcome: z.string() }),
  /** The run itself failed (an error in planning or the loop) while the arm was armed or moving. */
  z.object({ code: z.literal('run-error'), detail: z.string() }),
  /**
   * The safety thread (motion capture, supervisor, robot command stream) ended or stopped
   * answering: its RTDE link went with it, and the control program's watchdog stopped the arm.
   */
  z.object({ code: z.literal('safety-thread'), detail: z.string() }),
]);
export type StopReason = z.infer<typeof stopReasonSchema>;

const mm = (m: number): string => `${(m * 1000).toFixed(0)} mm`;
/** One decimal: penetrations and drifts are millimetres. */
const mm1 = (m: number): string => `${(m * 1000).toFixed(1)} mm`;
const deg = (rad: number): string => `${((rad * 180) / Math.PI).toFixed(0)} deg`;
/** Ages are seconds; the operator reads milliseconds. */
const ms = (s: number): string => `${(s * 1000).toFixed(0)} ms`;

export function describeStop(r: StopReason): string {
  switch (r.code) {
    case 'operator-abort':
      return 'Aborted by operator';
    case 'mocap-stale':
      return `Motion capture stale: ${r.body} not seen for ${ms(r.age)}`;
    case 'mocap-frozen':
      return r.repeated === 'frame'
        ? `Motion capture frozen: frame ${r.frameNumber} repeated for ${ms(r.age)}`
        : `Motion capture frozen: ${r.body} pose repeated unchanged for ${ms(r.age)} (frame ${r.frameNumber})`;
    case 'mocap-untracked':
      return `Motion capture lost tracking of ${r.body}`;
    case 'mocap-suspect':
      return `Motion capture may be spoofed: ${r.detail}`;
    case 'protective-stop':
      return 'Robot protective stop';
    case 'emergency-stop':
      return 'Emergency stop';
    case 'safety-fault':
      return `Robot safety mode ${r.mode}`;
    case 'program-stopped':
      return `Control program not running (runtime state ${r.runtimeState})`;
    case 'robot-link-lost':
      return `Robot link lost: ${r.message}`;
    case 'robot-state-stale':
      return `No robot state for ${ms(r.age)}`;
    case 'loop-stalled':
      return `Control loop stalled: no command for ${ms(r.age)}`;
    case 'speed-limit':
      return `Commanded speed ${mm(r.speed)}/s exceeds the limit ${mm(r.limit)}/s`;
    case 'yaw-rate-limit':
      return `Commanded yaw rate ${deg(r.rate)}/s exceeds the limit ${deg(r.limit)}/s`;
    case 'opening-speed-limit':
      return `Commanded finger speed ${mm(r.speed)}/s exceeds the limit ${mm(r.limit)}/s`;
    case 'workspace':
      return `Command refused: ${r.detail}`;
    case 'obstacle-clearance':
      return `Command refused: it would take the tool within ${mm(r.clearance)} of ${r.obstacle} (${mm(r.gap)} left)`;
    case 'obstacle-contact':
      return r.gap <= 0
        ? `${r.body} touching ${r.obstacle} (${mm1(-r.gap)} deep)`
        : `${r.body} pushed towards ${r.obstacle}, ${mm1(r.gap)} away: closer than the arm can stop`;
    case 'off-table':
      return r.excess > 0
        ? `${r.body} leaving the table (${mm1(r.excess)} past the edge)`
        : `${r.body} pushed towards the table edge, ${mm1(-r.excess)} from it: closer than the arm can stop`;
    case 'calibration-drift':
      return `Calibration drift: motion capture and the robot place the pusher ${mm1(r.drift)} apart (limit ${mm1(r.limit)})`;
    case 'non-finite':
      return `Non-finite ${r.source}: ${r.detail}`;
    case 'pusher-lost':
      return `Pusher lost: ${r.detail}`;
    case 'gripper-fault':
      return `Gripper fault: ${r.detail}`;
    case 'task-ended':
      return `Run ended: ${r.outcome}`;
    case 'run-error':
      return `Run failed: ${r.detail}`;
    case 'safety-thread':
      return `Safety thread failed: ${r.detail}`;
  }
}
