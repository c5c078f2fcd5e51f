/**
 * The messages between the main thread and the safety thread (core.ts), each direction one zod
 * schema: a message is parsed where it arrives, never trusted for its shape. Configuration
 * crosses as plain data (addresses, the scene and setup files' own contents, numbers), so the
 * thread builds its devices and its Supervisor from the same inputs the main thread would.
 *
 * Times (a robot state's receivedAt, a decision's `at`, motion-capture arrival times) are on the
 * process's one monotonic clock (common/clock.ts), whose origin is the same in every thread: they
 * cross as they are.
 */
import { z } from 'zod';
import { preflightReportSchema } from '#contract/console-api';
import { SAFETY_MESSAGE_LIMITS } from '#contract/safety-limits';
import { sceneSchema } from '#contract/scene';
import { setupSchema } from '../../calibration/setup-file';
import { priorityResultSchema } from '../../common/thread-priority';
import type { StopReason } from '../../safety/stop-reasons';
import type { MocapSnapshot } from '../../mocap/scene-binding';
import type { FrameOfData } from '../../mocap/messages/frame';
import type { MocapStats } from '../../mocap/stats';
import type { RobotState } from '../../robot/robot-state';
import type { ControlProgramSettings } from '../../robot/control-program';

const finite = z.number();
/**
 * A proposed velocity component: any number, NaN and infinities included. The supervisor must
 * see a non-finite proposal to refuse it and stop; a schema that dropped it would let the last
 * command run on.
 */
const proposal = z.custom<number>((v) => typeof v === 'number', 'a number');

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

// Bounds of every timing field that crosses (the staleness ages, lookahead, durations, periods).
const M = SAFETY_MESSAGE_LIMITS;
const age = finite.positive().max(M.maxAge);

/** Limits of one run's supervisor beyond the scene's; absent: the Supervisor's defaults. */
export const supervisorConfigSchema = z
  .object({
    lookahead: finite.min(M.lookahead.min).max(M.lookahead.max).optional(),
    mocapMaxAge: age.optional(),
    robotStateMaxAge: age.optional(),
    commandMaxGap: age.optional(),
  })
  .strict();
export type SupervisorConfig = z.infer<typeof supervisorConfigSchema>;

export const connectSchema = z
  .object({
    type: z.literal('connect'),
    robot: z
      .object({
        host: z.string(),
        rtdePort: z.number().int().positive().optional(),
        scriptPort: z.number().int().positive().optional(),
        sendProgramOnConnect: z.boolean(),
      })
      .strict(),
    natnet: z
      .object({
        serverAddress: z.string(),
        localAddress: z.string(),
        commandPort: z.number().int().positive().optional(),
      })
      .strict(),
    scene: sceneSchema,
    /**
     * The modules of the tools registered on the main thread (contract/end-effector/registry.ts
     * toolModules): the thread imports them before it reads the scene's tool.
     */
    toolModules: z.array(z.string()),
    setup: setupSchema,
    /** Period of the supervisor's watchdog tick, s. */
    tick: finite.positive(),
  })
  .strict();
export type SafetyConnect = z.infer<typeof connectSchema>;

/** The fields of a robot state the supervisor and the main thread read, checked; the rest passes as decoded. */
const robotStateSchema = z.custom<RobotState>(
  (v) =>
    isObject(v) &&
    typeof v['receivedAt'] === 'number' &&
    Array.isArray(v['tcpPose']) &&
    Array.isArray(v['tcpSpeed']) &&
    typeof v['safetyMode'] === 'string' &&
    isObject(v['safetyStatus']) &&
    isObject(v['robotStatus']) &&
    isObject(v['program']),
  'a decoded robot state',
);

/**
 * An error of the thread's devices as it crosses: its class's name and words (and an RTDE setup
 * refusal's variables), so the main thread rebuilds the same kind (mirrors.ts threadError) and
 * the CLI and console tell a lab's state from a fault of this program.
 */
const threadErrorSchema = z
  .object({
    name: z.string(),
    message: z.string(),
    rtdeSetup: z
      .object({
        direction: z.enum(['output', 'input']),
        failed: z.array(
          z
            .object({ name: z.string(), reason: z.enum(['NOT_FOUND', 'IN_USE']), likelyCause: z.string() })
            .strict(),
        ),
      })
      .strict()
      .optional(),
  })
  .strict();
export type ThreadError = z.infer<typeof threadErrorSchema>;

/** Main thread -> safety thread. */
export const toSafetySchema = z.discriminatedUnion('type', [
  connectSchema,
  /** A newly saved setup (the calibration wizard): later frames and runs use it. */
  z.object({ type: z.literal('setup'), setup: setupSchema }).strict(),
  /** Sends the control program again (pre-flight's restart, recovery); answered by `reply`. */
  z.object({ type: z.literal('send-program'), id: z.number().int() }).strict(),
  /**
   * A jog of the tool by (dx, dy) m along the robot base axes (the calibration wizard,
   * robot/jog.ts), refused while a run is armed; answered by `reply` with the distance moved.
   */
  z.object({ type: z.literal('jog'), id: z.number().int(), dx: finite, dy: finite }).strict(),
  /**
   * A turn of the tool by `angle` rad about the vertical through the pusher's tip (the wizard's
   * pivot measurement, robot/jog.ts turnTool), refused like a jog; answered by `reply` with the
   * angle turned in `moved`.
   */
  z.object({ type: z.literal('turn'), id: z.number().int(), angle: finite }).strict(),
  /** Stops the jog under way (the operator's Abort). */
  z.object({ type: z.literal('jog-stop') }).strict(),
  /** A stop outside a run (recovery zeroes the twist, closing the lab): stops never move the arm. */
  z.object({ type: z.literal('robot-stop') }).strict(),
  /** A new supervisor for a run: the scene within the lab's limits (supervised-run.ts withinLab). */
  z.object({ type: z.literal('supervise'), scene: sceneSchema, config: supervisorConfigSchema }).strict(),
  z.object({ type: z.literal('arm'), report: preflightReportSchema }).strict(),
  z.object({ type: z.literal('start-run') }).strict(),
  z.object({ type: z.literal('command'), vx: proposal, vy: proposal, yawRate: proposal }).strict(),
  /**
   * One control of the plan: the thread's supervisor proposes this velocity every `period` s for
   * `duration` s, then holds; answered by `streamed`. The command stream so never waits on the
   * main thread.
   */
  z
    .object({
      type: z.literal('stream'),
      id: z.number().int(),
      vx: proposal,
      vy: proposal,
      yawRate: proposal,
      duration: finite.nonnegative().max(M.maxDuration),
      period: finite.min(M.period.min).max(M.period.max),
    })
    .strict(),
  z
    .object({
      type: z.literal('fingers'),
      openingSpeed: proposal,
      duration: finite.nonnegative().max(M.maxDuration),
    })
    .strict(),
  z.object({ type: z.literal('hold') }).strict(),
  z.object({ type: z.literal('abort') }).strict(),
  z.object({ type: z.literal('finish'), outcome: z.string() }).strict(),
  z.object({ type: z.literal('run-failed'), detail: z.string() }).strict(),
  z.object({ type: z.literal('reset') }).strict(),
  /** The Robotiq (on the main thread) faulted or stopped holding the pusher. */
  z.object({ type: z.literal('gripper-fault'), detail: z.string() }).strict(),
  z.object({ type: z.literal('pusher-lost'), detail: z.string() }).strict(),
  /** A gripper scene's finger gap as the Robotiq last reported it, m. */
  z.object({ type: z.literal('opening'), opening: finite }).strict(),
  /** How a finger move the thread asked for went: `error` when the Robotiq refused it. */
  z.object({ type: z.literal('fingers-done'), id: z.number().int(), error: z.string().optional() }).strict(),
  /** The tick lateness so far; `restart` then starts a new count (a benchmark's loaded phase). */
  z.object({ type: z.literal('stats'), id: z.number().int(), restart: z.boolean() }).strict(),
]);
export type ToSafety = z.infer<typeof toSafetySchema>;

/**
 * A stop reason as the supervisor made it. Not stopReasonSchema: a refused proposal of infinite
 * speed is reported with an infinite speed, which that schema (made for JSON files) refuses.
 */
const stopReasonSchema = z.custom<StopReason>(
  (v) => isObject(v) && typeof v['code'] === 'string',
  'a stop reason',
);

export const supervisorStateSchema = z.enum(['disarmed', 'armed', 'running', 'stopped']);

export const decisionSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('armed'), at: finite }).strict(),
  z.object({ kind: z.literal('arm-refused'), at: finite, failed: z.array(z.string()) }).strict(),
  z.object({ kind: z.literal('run-started'), at: finite }).strict(),
  z.object({ kind: z.literal('stop'), at: finite, reason: stopReasonSchema, message: z.string() }).strict(),
  z
    .object({ kind: z.literal('command-refused'), at: finite, reason: stopReasonSchema, message: z.string() })
    .strict(),
  z.object({ kind: z.literal('fingers'), at: finite, opening: finite, speed: finite }).strict(),
  z.object({ kind: z.literal('disarmed'), at: finite }).strict(),
]);

/** Tick lateness, ms: how long after it was due each watchdog tick ran. */
export const tickStatsSchema = z
  .object({ ticks: z.number().int(), p50: finite, p99: finite, max: finite })
  .strict();
export type TickStats = z.infer<typeof tickStatsSchema>;

const snapshotSchema = z.custom<MocapSnapshot>(
  (v) =>
    isObject(v) &&
    typeof v['frameNumber'] === 'number' &&
    typeof v['receivedAt'] === 'number' &&
    Array.isArray(v['rigidBodies']),
  'a motion-capture snapshot',
);
const frameSchema = z.custom<FrameOfData>(
  (v) => isObject(v) && typeof v['frameNumber'] === 'number' && Array.isArray(v['rigidBodies']),
  'a NatNet frame of data',
);
const mocapStatsSchema = z.custom<MocapStats>(
  (v) => isObject(v) && typeof v['frames'] === 'number' && typeof v['frameRate'] === 'number',
  'motion-capture statistics',
);

/** What the main thread mirrors of the robot connection besides its states. */
export const robotInfoSchema = z
  .object({
    linkUp: z.boolean(),
    uploadProblem: z.string().optional(),
    frequency: finite,
    controllerVersion: z
      .object({ major: finite, minor: finite, bugfix: finite, build: finite })
      .strict()
      .optional(),
    settings: z.custom<ControlProgramSettings>(
      (v) => isObject(v) && typeof v['maxSpeed'] === 'number' && typeof v['watchdogTimeout'] === 'number',
      'control program settings',
    ),
  })
  .strict();
export type RobotInfo = z.infer<typeof robotInfoSchema>;

/** Safety thread -> main thread. */
export const fromSafetySchema = z.discriminatedUnion('type', [
  /** Connected: the robot link is up (its program sent) and motion capture answered. */
  z
    .object({
      type: z.literal('ready'),
      robot: robotInfoSchema,
      mocapApp: z.string(),
      /** Where the NatNet client listens (NatNetClient.localEndpoint): for the lab's firewall rules. */
      mocapLocal: z
        .object({
          address: z.string(),
          commandPort: z.number().int(),
          dataPort: z.number().int().optional(),
        })
        .strict(),
      /** Whether the thread runs at raised priority (common/thread-priority.ts), or why not. */
      priority: priorityResultSchema,
    })
    .strict(),
  z.object({ type: z.literal('failed'), error: threadErrorSchema }).strict(),
  /** A request the thread refused (its supervisor threw); the thread goes on. */
  z.object({ type: z.literal('error'), message: z.string() }).strict(),
  /** Sent every few ticks: the thread's event loop runs. */
  z.object({ type: z.literal('heartbeat') }).strict(),
  z.object({ type: z.literal('robot-state'), state: robotStateSchema }).strict(),
  z.object({ type: z.literal('robot-info'), robot: robotInfoSchema }).strict(),
  z
    .object({
      type: z.literal('robot-event'),
      event: z.enum(['linkLost', 'linkRestored', 'reconnectFailed', 'programSent', 'notice']),
      message: z.string().optional(),
    })
    .strict(),
  z.object({ type: z.literal('frame'), frame: frameSchema, snapshot: snapshotSchema }).strict(),
  z.object({ type: z.literal('mocap-stats'), stats: mocapStatsSchema }).strict(),
  /** The answer to a request with this id; `error` when it failed (the error's name and words). */
  z
    .object({
      type: z.literal('reply'),
      id: z.number().int(),
      /** A jog's distance moved (m), or a turn's angle (rad). */
      moved: z.number().optional(),
      error: threadErrorSchema.optional(),
    })
    .strict(),
  z
    .object({
      type: z.literal('decision'),
      decision: decisionSchema,
      state: supervisorStateSchema,
      stopReason: stopReasonSchema.optional(),
      stoppedAt: finite.optional(),
    })
    .strict(),
  /** A command as it went to the robot (the run's log records every one). */
  z
    .object({
      type: z.literal('command'),
      kind: z.enum(['twist', 'stop']),
      seq: z.number().int().nullable(),
      vx: finite,
      vy: finite,
      acceleration: finite,
      yawRate: finite.optional(),
    })
    .strict(),
  /** A streamed control ended: `ok` false when the supervisor refused it or the run stopped meanwhile. */
  z.object({ type: z.literal('streamed'), id: z.number().int(), ok: z.boolean() }).strict(),
  /** The supervisor moves a gripper scene's fingers: the Robotiq is on the main thread. */
  z.object({ type: z.literal('fingers'), id: z.number().int(), opening: finite, speed: finite }).strict(),
  z
    .object({
      type: z.literal('stats'),
      id: z.number().int(),
      stats: tickStatsSchema,
      /** Gaps between motion-capture frames as they reached the thread, ms. */
      frameGaps: tickStatsSchema,
    })
    .strict(),
]);
export type FromSafety = z.infer<typeof fromSafetySchema>;
