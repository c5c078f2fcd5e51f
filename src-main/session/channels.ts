/**
 * The channels of a session log: one MCAP topic per kind of data, each with a zod schema (used to
 * validate what is read back) and the JSON Schema derived from it (stored in the file, so Foxglove
 * and any other reader know the fields). Every message of our own (`parapush.*`) channels carries
 * two timestamps next to its payload: `mono`, seconds since the recording started on the
 * monotonic clock (common/clock.ts), and `wall`, s since the epoch (Date.now). States and poses
 * have named fields (named-state.ts), never unnamed arrays. Beside them, `/foxglove/*` channels
 * carry Foxglove's well-known schemas (foxglove-schemas.ts, foxglove.ts), unstamped, for its Log,
 * 3D and Transform panels. SI units throughout.
 */
import { createRequire } from 'node:module';
import { z } from 'zod';
import { hasNullableField, withNulls } from './absent-nulls';
import { foxgloveReadable } from './foxglove-json-schema';
import { eventSchema, sessionOriginSchema } from '#contract/console-api';
import { labViewSchema } from '#contract/lab-view';
import { modelRequestKindSchema, plannerSettingsSchema } from '#contract/planner-settings';
import { sceneSchema } from '#contract/scene';
import { ROBOT_STATUS_BITS, SAFETY_STATUS_BITS } from '../robot/rtde/robot-state-codes';
import { stopReasonSchema } from '../safety/stop-reasons';
import {
  FOXGLOVE_SCHEMA_NAMES,
  foxgloveLogSchema,
  frameTransformsSchema,
  sceneUpdateSchema,
} from './foxglove-schemas';
import { loggedPlannerStepSchema, namedStateSchema } from './named-state';

const finite = z.number();
const vec3 = z.object({ x: finite, y: finite, z: finite });
const quat = z.object({ x: finite, y: finite, z: finite, w: finite });

/** Timestamps every message carries. */
export const stampSchema = z.object({
  mono: finite.describe('s since the recording started, monotonic clock'),
  wall: finite.describe('s since the epoch, wall clock'),
});
export type Stamp = z.infer<typeof stampSchema>;

const stamped = <T extends z.ZodRawShape>(shape: T) => stampSchema.extend(shape);

export const sessionInfoSchema = stamped({
  sessionId: z.string(),
  software: z.object({ name: z.string(), version: z.string() }),
  node: z.string(),
  platform: z.string(),
  origin: sessionOriginSchema,
});

export const sessionSettingsSchema = stamped({
  mode: z.enum(['dry', 'real']),
  scene: sceneSchema,
  settings: plannerSettingsSchema,
});

/**
 * The lab the run is on: which it is (virtual, real, mixed, as its devices say of themselves),
 * the scene its link was opened on and its setup's frames on the table (contract/lab-view.ts).
 */
export const sessionLabSchema = stamped({ lab: labViewSchema.nullable() });

const rigidBodySchema = z.object({
  id: z.number().int(),
  name: z.string().nullable(),
  position: vec3.describe('m, motion-capture frame'),
  orientation: quat.describe('quaternion x, y, z, w'),
  meanError: finite.describe('m'),
  trackingValid: z.boolean(),
});

export const mocapFrameSchema = stamped({
  frameNumber: z.number().int(),
  /** Local arrival time of the frame, s (the client's clock). */
  receivedAt: finite,
  /**
   * The frame's own timestamp, s on the server's clock (NatNet's frame timestamp): against
   * receivedAt it tells a server that sent late from a frame delivered late. Absent in older logs.
   */
  timestamp: finite.optional(),
  /** The server's latency of the frame (camera mid-exposure to transmit, its clock), s. Absent in older logs. */
  systemLatency: finite.optional(),
  rigidBodies: z.array(rigidBodySchema),
});

const bodyEstimateSchema = z.object({
  rigidBody: z.string().nullable(),
  pose: z.object({ x: finite, y: finite, theta: finite }).nullable(),
  z: finite.nullable(),
  poseTime: finite.nullable(),
  tracked: z.boolean(),
  age: finite.nullable().describe('s since the pose was seen; null: never seen'),
  stale: z.boolean(),
  repeated: z
    .enum(['frame', 'pose'])
    .nullable()
    .describe('what of the latest frame repeated the one before (a frozen stream); null: new'),
  status: z.enum(['ok', 'untracked', 'stale', 'missing', 'unbound']),
});

/**
 * The motion-capture stream's health as the client counts it (mocap/stats.ts), since the lab link
 * connected: recorded when a run attaches to the lab, once a second, and when it lets go, so what
 * the run saw is the last message minus the first.
 */
export const mocapStatsSchema = stamped({
  frames: z.number().int().describe('frames received'),
  frameRate: finite.describe('frames/s over the recent window'),
  droppedFrames: z
    .number()
    .int()
    .describe('gaps in the numbering of the frames taken: never received, or too late'),
  olderFrames: z
    .number()
    .int()
    .describe('frames dropped unread as older than the newest: replayed, reordered, an unconfirmed restart'),
  /** Absent from logs written before the client judged jumps ahead and signs of spoofing. */
  unconfirmedFrames: z
    .number()
    .int()
    .default(0)
    .describe('frames dropped unread as too far ahead of the newest: a numbering jump not confirmed'),
  repeatedFrames: z.number().int().describe("frames that repeated the newest frame's number"),
  restarts: z
    .number()
    .int()
    .describe('new numberings taken: a Motive restart (lower), or a jump after a pause (higher)'),
  decodeErrors: z.number().int().describe('packets that could not be decoded'),
  foreignPackets: z.number().int().describe('packets from other senders, dropped unread'),
  spoofSigns: z
    .number()
    .int()
    .default(0)
    .describe(
      'signs of a second sender posing as Motive: its address on another port, messages nobody asked for, two numberings at once, a number with two contents',
    ),
});

export const mocapPosesSchema = stamped({
  frameNumber: z.number().int(),
  pusher: bodyEstimateSchema,
  sliders: z.array(bodyEstimateSchema.extend({ id: z.string() })),
  ok: z.boolean(),
});

/**
 * Status bits as one boolean field each, never a map: Foxglove's reader knows an object only by
 * its listed properties, and shows a map as an empty object.
 */
const statusBits = <K extends string>(bits: Record<K, number>) =>
  z.object(Object.fromEntries(Object.keys(bits).map((k) => [k, z.boolean()])) as Record<K, z.ZodBoolean>);

export const robotStateSchema = stamped({
  timestamp: finite.describe('s, controller time'),
  receivedAt: finite.describe('s, monotonic clock at decode'),
  /** Tool pose, robot base frame: position (m) and rotation vector (rad). */
  tcpPose: z.object({ x: finite, y: finite, z: finite, rx: finite, ry: finite, rz: finite }),
  /** Tool twist, robot base frame: linear (m/s) and angular (rad/s). */
  tcpSpeed: z.object({ vx: finite, vy: finite, vz: finite, wx: finite, wy: finite, wz: finite }),
  robotMode: z.string(),
  safetyMode: z.string(),
  runtimeState: z.string(),
  robotStatus: statusBits(ROBOT_STATUS_BITS),
  safetyStatus: statusBits(SAFETY_STATUS_BITS),
  speedScaling: finite,
  program: z.object({ ackSequence: z.number().int(), state: z.string(), heartbeat: z.number() }),
});

export const robotCommandSchema = stamped({
  kind: z.enum(['twist', 'stop']),
  /** Sequence number the control program acknowledges; null when the command was not sent. */
  sequence: z.number().int().nullable(),
  vx: finite.describe('m/s, base frame'),
  vy: finite.describe('m/s, base frame'),
  acceleration: finite.describe('m/s^2'),
  /** A gripper's turn about base z (rad/s); absent for a pusher, which never turns. */
  yawRate: finite.optional().describe('rad/s, base z'),
});

/** The safety supervisor's decisions as it made them (src-main/safety/supervisor.ts Decision; `at`: its monotonic clock, s). */
export const supervisorDecisionSchema = z.discriminatedUnion('kind', [
  stamped({ kind: z.literal('armed'), at: finite }),
  stamped({ kind: z.literal('arm-refused'), at: finite, failed: z.array(z.string()) }),
  stamped({ kind: z.literal('run-started'), at: finite }),
  stamped({ kind: z.literal('stop'), at: finite, reason: stopReasonSchema, message: z.string() }),
  stamped({ kind: z.literal('command-refused'), at: finite, reason: stopReasonSchema, message: z.string() }),
  /** A gripper's finger motion, checked and sent to the Robotiq: towards `opening` m at `speed` m/s. */
  stamped({ kind: z.literal('fingers'), at: finite, opening: finite, speed: finite }),
  stamped({ kind: z.literal('disarmed'), at: finite }),
]);

export const operatorActionSchema = stamped({
  /** What the operator did, e.g. "run.start", "run.abort", "scene.update". */
  action: z.string(),
  detail: z.string(),
});

/**
 * The prediction model the run plans with, recorded once it is resolved: the one asked for (the
 * settings' kind), the one used (auto's choice for this machine's workers) and auto's reason.
 */
export const runModelSchema = stamped({
  requested: modelRequestKindSchema,
  model: z.string().describe('the model spec planned with: fine, coarse, parareal:K'),
  workers: z.number().int().describe('fine-model worker processes'),
  reason: z.string().nullable().describe('why auto chose the model; null when it was asked for by name'),
});

/**
 * The planner's prediction error of one executed control (planning/prediction-error.ts): its
 * predicted state at the control's end against the one observed there. Named number fields, so
 * Foxglove's Plot panel plots `.position` and `.yaw` (or one object's) over the run.
 */
export const predictionErrorSchema = stamped({
  step: z.number().int().describe('the executed step, from 0'),
  position: finite.describe('m, the largest object position error'),
  yaw: finite.describe('rad, the largest object yaw error'),
  objects: z.array(
    z.object({
      id: z.string(),
      position: finite.describe('m'),
      yaw: finite.describe('rad'),
    }),
  ),
});

export const runOutcomeRecordSchema = stamped({
  /**
   * How the run ended: its lifecycle outcome (contract/run-lifecycle.ts: finished, aborted,
   * failed). Any word is read back: logs written before every run had one recorder hold the
   * planning task's (success, failure, stopped, refused, ...).
   */
  outcome: z.string(),
  detail: z.string().nullable(),
});

// The console events of a run, recorded as the operator saw them; playback re-emits exactly these.
type EventOption = (typeof eventSchema.options)[number];
type ConsoleEventType = z.infer<typeof eventSchema>['type'];
export function eventOf<T extends ConsoleEventType>(type: T) {
  const option = eventSchema.options.find((o) => o.shape.type.value === type);
  if (!option) throw new Error(`the console API has no "${type}" event`);
  return option as Extract<EventOption, { shape: { type: z.ZodLiteral<T> } }>;
}

/** The measured state the live view shows (the console's "state" event), named. */
export const sceneStateSchema = stamped({
  time: finite.describe('s of run time'),
  ...namedStateSchema.shape,
});
/** One MPC step: plan, predictions per Parareal iteration, costs, timings (states named). */
export const plannerStepEventSchema = stampSchema.extend(loggedPlannerStepSchema.shape);
export const supervisorEventSchema = stamped({ event: eventOf('supervisor') });
export const consoleLogSchema = stamped({ event: eventOf('log') });
export const runStatusEventSchema = stamped({ event: eventOf('run') });

/** Every channel: topic -> schema. The topic names are what Foxglove Studio shows. */
export const channels = {
  '/session/info': sessionInfoSchema,
  '/session/settings': sessionSettingsSchema,
  '/session/lab': sessionLabSchema,
  '/mocap/frame': mocapFrameSchema,
  '/mocap/poses': mocapPosesSchema,
  '/mocap/stats': mocapStatsSchema,
  '/scene/state': sceneStateSchema,
  '/robot/state': robotStateSchema,
  '/robot/command': robotCommandSchema,
  '/supervisor/decision': supervisorDecisionSchema,
  '/supervisor/event': supervisorEventSchema,
  '/planner/step': plannerStepEventSchema,
  '/planner/prediction-error': predictionErrorSchema,
  '/operator/action': operatorActionSchema,
  '/console/log': consoleLogSchema,
  '/run/status': runStatusEventSchema,
  '/run/model': runModelSchema,
  '/run/outcome': runOutcomeRecordSchema,
  '/foxglove/log': foxgloveLogSchema,
  '/foxglove/tf': frameTransformsSchema,
  '/foxglove/scene/table': sceneUpdateSchema,
  '/foxglove/scene/objects': sceneUpdateSchema,
  '/foxglove/scene/plan': sceneUpdateSchema,
} as const;

export type Topic = keyof typeof channels;
export type MessageOf<T extends Topic> = z.infer<(typeof channels)[T]>;
/** A payload as the recorder takes it: the recorder adds the timestamps (to our own channels). */
export type PayloadOf<T extends Topic> = DistributiveOmit<MessageOf<T>, 'mono' | 'wall'>;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export const topics = Object.keys(channels) as Topic[];

export function isTopic(topic: string): topic is Topic {
  return Object.hasOwn(channels, topic);
}

/** Channels in one of Foxglove's well-known schemas (no mono/wall stamps). */
export type FoxgloveTopic = Extract<Topic, `/foxglove/${string}`>;
/** Our own channels: every message carries `mono` and `wall`. */
export type StampedTopic = Exclude<Topic, FoxgloveTopic>;

export function isFoxgloveTopic(topic: Topic): topic is FoxgloveTopic {
  return FOXGLOVE_SCHEMA_NAMES.has(channels[topic]);
}

export const stampedTopics = topics.filter((t): t is StampedTopic => !isFoxgloveTopic(t));

/** Topics that hold a console event; playback re-emits these in log-time order (playback.ts). */
export const consoleEventTopics = [
  '/scene/state',
  '/planner/step',
  '/supervisor/event',
  '/console/log',
] as const satisfies readonly Topic[];

/**
 * Schema names in the file: "parapush.robot_state" for /robot/state, the well-known name
 * ("foxglove.SceneUpdate") for a Foxglove channel.
 */
export function schemaName(topic: Topic): string {
  return FOXGLOVE_SCHEMA_NAMES.get(channels[topic]) ?? `parapush.${topic.slice(1).replace(/[/-]/g, '_')}`;
}

// A CommonJS package whose named exports Node's ESM loader does not see: required.
const { FrameTransforms, Log, SceneUpdate } = createRequire(import.meta.url)(
  '@foxglove/schemas/jsonschema',
) as typeof import('@foxglove/schemas/jsonschema');

/** The official JSON Schemas (the `@foxglove/schemas` package) of the Foxglove channels. */
const officialSchemas: Record<string, object> = {
  'foxglove.Log': Log,
  'foxglove.FrameTransforms': FrameTransforms,
  'foxglove.SceneUpdate': SceneUpdate,
};

const sourceSchemas = new Map<Topic, object>();
/** A channel's JSON Schema as zod writes it (nullable fields nullable and required). */
function sourceJsonSchema(topic: Topic): object {
  let schema = sourceSchemas.get(topic);
  if (!schema) {
    schema = z.toJSONSchema(channels[topic], { unrepresentable: 'any', io: 'output' });
    sourceSchemas.set(topic, schema);
  }
  return schema;
}

/**
 * JSON Schema of a channel, as stored in the MCAP schema record: Foxglove's own for its channels
 * (so its panels see named enumerations and base64 bytes exactly as it defines them), ours in
 * the form Foxglove's reader accepts (foxglove-json-schema.ts).
 */
export function channelJsonSchema(topic: Topic): object {
  const official = officialSchemas[schemaName(topic)];
  return official ?? foxgloveReadable(sourceJsonSchema(topic));
}

/** Whether a channel has fields that may be null (which the writer leaves out: absent-nulls.ts). */
export function hasNullableFields(topic: Topic): boolean {
  return !isFoxgloveTopic(topic) && hasNullableField(sourceJsonSchema(topic));
}

/** A message as read from a log (parsed JSON) with the null fields the writer left out put back. */
export function withAbsentNulls(topic: Topic, json: unknown): unknown {
  return isFoxgloveTopic(topic) ? json : withNulls(sourceJsonSchema(topic), json);
}
