/**
 * Logs recorded before states were named still open: their four channels that held unnamed
 * arrays (robot tool pose and twist, rigid-body positions and orientations, and the console's
 * state and planner-step events as they were) are read with the schemas they were written with
 * and turned into today's messages. Fields since removed (a planner step's
 * timings.measuredSpeedup, which was always null) are dropped, a planner step's rollouts (arrays
 * of states) become { states } objects, planner settings' renamed fields take today's names
 * (contract/planner-settings.ts withCurrentSettingsNames), and times recorded in ms are
 * converted to seconds (fromLegacyUnits). Nothing writes these forms any more.
 */
import { z } from 'zod';
import { withCurrentSettingsNames } from '#contract/planner-settings';
import { channels, eventOf, stampSchema, type MessageOf, type Topic } from './channels';
import { loggedPlannerStep, namedState, rigidBodyFields, tcpPoseFields, tcpSpeedFields } from './named-state';

const finite = z.number();

const legacy = {
  '/robot/state': channels['/robot/state'].extend({ tcpPose: z.array(finite), tcpSpeed: z.array(finite) }),
  '/mocap/frame': channels['/mocap/frame'].extend({
    rigidBodies: z.array(
      z.object({
        id: z.number().int(),
        name: z.string().nullable(),
        position: z.tuple([finite, finite, finite]),
        orientation: z.tuple([finite, finite, finite, finite]),
        meanError: finite,
        trackingValid: z.boolean(),
      }),
    ),
  }),
  '/scene/state': stampSchema.extend({ event: eventOf('state') }),
  '/planner/step': stampSchema.extend({ event: eventOf('planner-step') }),
} as const;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A planner step without timings.measuredSpeedup (logged as null until it was removed: nothing measured it). */
function withoutMeasuredSpeedup(step: unknown): unknown {
  if (!isObject(step) || !isObject(step.timings) || !Object.hasOwn(step.timings, 'measuredSpeedup'))
    return step;
  const { measuredSpeedup: _, ...timings } = step.timings;
  return { ...step, timings };
}

/** A named planner step whose rollouts were arrays of states (before each became { states }). */
function withRolloutObjects(step: unknown): unknown {
  if (!isObject(step) || !Array.isArray(step.rollouts) || !step.rollouts.every(Array.isArray)) return step;
  return { ...step, rollouts: step.rollouts.map((states: unknown) => ({ states })) };
}

/**
 * The message without the fields its channel has since lost, in today's form and in the
 * console-event form, with today's form's rollouts as objects, and with the planner settings'
 * renamed fields in today's names.
 */
function withoutRemovedFields(topic: Topic, json: unknown): unknown {
  if (topic === '/session/settings') {
    if (!isObject(json)) return json;
    const settings = withCurrentSettingsNames(json.settings);
    return settings === json.settings ? json : { ...json, settings };
  }
  if (topic !== '/planner/step') return json;
  const m = withRolloutObjects(withoutMeasuredSpeedup(json));
  return isObject(m) && isObject(m.event)
    ? { ...m, event: { ...m.event, step: withoutMeasuredSpeedup(m.event.step) } }
    : m;
}

/**
 * Logs recorded before every time in them was in seconds stamped `wall` in ms since the epoch, and
 * held robot states' `receivedAt`, supervisor decisions' `at`, stop reasons' `ageMs`, console log
 * lines' `at` and run statuses' `startedAt` in ms. The wall stamp tells them apart: in seconds it
 * stays below 1e11 until the year 5138, in ms it passed 1e11 in 1973.
 */
const MS_WALL = 1e11;

/** A wall clock of a log, in s since the epoch: an older log's ms converted. */
export function wallSecondsOf(wall: number): number {
  return wall > MS_WALL ? wall / 1000 : wall;
}

/** A stop reason with its age in s (older logs: `ageMs`). */
function stopReasonFromLegacy(reason: unknown): unknown {
  if (!isObject(reason) || typeof reason.ageMs !== 'number') return reason;
  const { ageMs: ms, ...rest } = reason;
  return { ...rest, age: ms / 1000 };
}

/** A body estimate with its age, s, named `age` (older logs: `ageS`). */
function bodyAgeNamed(body: unknown): unknown {
  if (!isObject(body) || !Object.hasOwn(body, 'ageS')) return body;
  const { ageS: age, ...rest } = body;
  return { ...rest, age };
}

/** Poses whose bodies' ages are named `age` (older logs: `ageS`). */
function posesAgeNamed(json: Record<string, unknown>): Record<string, unknown> {
  if (!isObject(json.pusher) || !Object.hasOwn(json.pusher, 'ageS')) return json;
  const sliders = Array.isArray(json.sliders) ? json.sliders.map(bodyAgeNamed) : json.sliders;
  return { ...json, pusher: bodyAgeNamed(json.pusher), sliders };
}

/**
 * The message with every time in seconds and named without a unit: a message of an older log (its
 * wall stamp in ms) has its ms fields converted, a body estimate's `ageS` becomes `age`; any other
 * is returned as it is.
 */
export function fromLegacyUnits(topic: Topic, raw: unknown): unknown {
  const json = topic === '/mocap/poses' && isObject(raw) ? posesAgeNamed(raw) : raw;
  if (!isObject(json) || typeof json.wall !== 'number' || json.wall <= MS_WALL) return json;
  const m: Record<string, unknown> = { ...json, wall: json.wall / 1000 };
  const seconds = (v: unknown): unknown => (typeof v === 'number' ? v / 1000 : v);
  if (topic === '/robot/state') m.receivedAt = seconds(m.receivedAt);
  if (topic === '/supervisor/decision') {
    m.at = seconds(m.at);
    if ('reason' in m) m.reason = stopReasonFromLegacy(m.reason);
  }
  const event = m.event;
  if (topic === '/console/log' && isObject(event)) m.event = { ...event, at: seconds(event.at) };
  if (topic === '/run/status' && isObject(event) && isObject(event.status))
    m.event = { ...event, status: { ...event.status, startedAt: seconds(event.status.startedAt) } };
  return m;
}

/**
 * Today's message of a message in an older form of its channel; undefined when the channel never
 * had another form or the message is in neither.
 */
export function upgradeLegacyMessage<T extends Topic>(topic: T, json: unknown): MessageOf<T> | undefined {
  const current = withoutRemovedFields(topic, json);
  if (current !== json) {
    const checked = channels[topic].safeParse(current);
    if (checked.success) return checked.data as MessageOf<T>;
  }
  if (!Object.hasOwn(legacy, topic)) return undefined;
  const parsed = legacy[topic as keyof typeof legacy].safeParse(current);
  if (!parsed.success) return undefined;
  const m = parsed.data;
  let upgraded: unknown;
  if ('tcpPose' in m)
    upgraded = { ...m, tcpPose: tcpPoseFields(m.tcpPose), tcpSpeed: tcpSpeedFields(m.tcpSpeed) };
  else if ('rigidBodies' in m) upgraded = { ...m, rigidBodies: m.rigidBodies.map(rigidBodyFields) };
  else if (m.event.type === 'state')
    upgraded = {
      mono: m.mono,
      wall: m.wall,
      time: m.event.time,
      ...namedState(m.event.sliderIds, m.event.state),
    };
  else upgraded = { mono: m.mono, wall: m.wall, ...loggedPlannerStep(m.event.step) };
  const checked = channels[topic].safeParse(upgraded);
  return checked.success ? (checked.data as MessageOf<T>) : undefined;
}
