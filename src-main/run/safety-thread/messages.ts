/**
 * The messages between the main thread and the safety thread (core.ts), each direction one zod
 * schema: a message is parsed where it arrives, never trusted for its shape. The supervisor's
 * configuration crosses as plain data (numbers, the scene and setup files' own contents), so the
 * thread builds the same Supervisor the main thread would, from the same inputs.
 */
import { z } from 'zod';
import { preflightReportSchema } from '#contract/console-api';
import { sceneSchema } from '#contract/scene';
import { setupSchema } from '../../calibration/setup-file';
import type { StopReason } from '../../safety/stop-reasons';
import type { PlanarPoses } from '../../mocap/scene-binding';
import type { RobotState } from '../../robot/robot-state';

const finite = z.number();
/**
 * A proposed velocity component: any number, NaN and infinities included. The supervisor must
 * see a non-finite proposal to refuse it and stop; a schema that dropped it would let the last
 * command run on.
 */
const proposal = z.custom<number>((v) => typeof v === 'number', 'a number');

export const supervisorConfigSchema = z
  .object({
    /** Largest pusher speed (m/s): the scene's within the lab's (supervised-run.ts withinLab). */
    maxSpeed: finite.positive(),
    lookahead: finite.positive().optional(),
    mocapMaxAge: finite.positive().optional(),
    robotStateMaxAge: finite.positive().optional(),
    commandMaxGap: finite.positive().optional(),
  })
  .strict();
export type SupervisorConfig = z.infer<typeof supervisorConfigSchema>;

export const safetyInitSchema = z
  .object({
    type: z.literal('init'),
    natnet: z
      .object({
        serverAddress: z.string(),
        localAddress: z.string(),
        commandPort: z.number().int().positive().optional(),
      })
      .strict(),
    scene: sceneSchema,
    setup: setupSchema,
    supervisor: supervisorConfigSchema,
    /** Period of the supervisor's watchdog tick, ms. */
    tickMs: finite.positive(),
    /** The main thread's performance.timeOrigin: decisions carry its monotonic clock. */
    clockOrigin: finite,
  })
  .strict();
export type SafetyInit = z.infer<typeof safetyInitSchema>;

/** The fields of a robot state the supervisor reads, checked; the rest passes as decoded. */
const robotStateSchema = z.custom<RobotState>(
  (v) =>
    typeof v === 'object' &&
    v !== null &&
    typeof (v as RobotState).receivedAt === 'number' &&
    Array.isArray((v as RobotState).tcpPose) &&
    typeof (v as RobotState).safetyMode === 'string' &&
    typeof (v as RobotState).safetyStatus === 'object' &&
    typeof (v as RobotState).robotStatus === 'object' &&
    typeof (v as RobotState).program === 'object',
  'a decoded robot state',
);

/** Main thread -> safety thread. */
export const toSafetySchema = z.discriminatedUnion('type', [
  safetyInitSchema,
  z.object({ type: z.literal('robot-state'), state: robotStateSchema }).strict(),
  z.object({ type: z.literal('robot-link-lost'), message: z.string() }).strict(),
  z.object({ type: z.literal('arm'), report: preflightReportSchema }).strict(),
  z.object({ type: z.literal('start-run') }).strict(),
  z.object({ type: z.literal('command'), vx: proposal, vy: proposal }).strict(),
  z.object({ type: z.literal('hold') }).strict(),
  z.object({ type: z.literal('abort') }).strict(),
  z.object({ type: z.literal('finish'), outcome: z.string() }).strict(),
  z.object({ type: z.literal('run-failed'), detail: z.string() }).strict(),
  z.object({ type: z.literal('reset') }).strict(),
  /** The tick lateness so far; `restart` then starts a new count (a benchmark's loaded phase). */
  z.object({ type: z.literal('stats'), id: z.number().int(), restart: z.boolean() }).strict(),
]);
export type ToSafety = z.infer<typeof toSafetySchema>;

/**
 * A stop reason as the supervisor made it. Not stopReasonSchema: a refused proposal of infinite
 * speed is reported with an infinite speed, which that schema (made for JSON files) refuses.
 */
const stopReasonSchema = z.custom<StopReason>(
  (v) => typeof v === 'object' && v !== null && typeof (v as StopReason).code === 'string',
  'a stop reason',
);

const supervisorStateSchema = z.enum(['disarmed', 'armed', 'running', 'stopped']);

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

const posesSchema = z.custom<PlanarPoses>(
  (v) =>
    typeof v === 'object' &&
    v !== null &&
    typeof (v as PlanarPoses).frameNumber === 'number' &&
    typeof (v as PlanarPoses).ok === 'boolean' &&
    typeof (v as PlanarPoses).pusher === 'object' &&
    Array.isArray((v as PlanarPoses).sliders),
  'planar poses',
);

/** Safety thread -> main thread. */
export const fromSafetySchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }).strict(),
  z.object({ type: z.literal('failed'), message: z.string() }).strict(),
  /** A request the thread refused (its supervisor threw); the thread goes on. */
  z.object({ type: z.literal('error'), message: z.string() }).strict(),
  z.object({ type: z.literal('poses'), poses: posesSchema }).strict(),
  z.object({ type: z.literal('decision'), decision: decisionSchema, state: supervisorStateSchema }).strict(),
  /** A twist for the robot (base frame, m/s), sent by the supervisor. */
  z.object({ type: z.literal('twist'), vx: finite, vy: finite, acceleration: finite }).strict(),
  z.object({ type: z.literal('stop'), acceleration: finite }).strict(),
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
