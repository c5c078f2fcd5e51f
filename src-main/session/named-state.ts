/**
 * State vectors (and the robot's and motion capture's poses) as a session log stores them: with
 * named fields, not as unnamed arrays. The run
 * works with the flat layout of contract/state.ts ([pusher x, y, slider poses, pusher velocity,
 * slider velocities]); the log writes `{ pusher: { x, y, vx, vy }, sliders: [{ id, x, y, theta,
 * vx, vy, omega }] }`, so Foxglove plots `/scene/state.pusher.x` and the CSV export has columns
 * named `box.theta`. Both directions are exact (playback gets back the vectors it replays).
 * SI units: m, rad, m/s, rad/s, table frame.
 */
import { z } from 'zod';
import { plannerStepSchema, type PlannerStep } from '../contract/console-api';

const finite = z.number();

export const namedPusherSchema = z
  .object({
    x: finite.describe('m'),
    y: finite.describe('m'),
    vx: finite.describe('m/s'),
    vy: finite.describe('m/s'),
  })
  .strict();

export const namedSliderSchema = z
  .object({
    id: z.string(),
    x: finite.describe('m'),
    y: finite.describe('m'),
    theta: finite.describe('rad, counter-clockwise about z'),
    vx: finite.describe('m/s'),
    vy: finite.describe('m/s'),
    omega: finite.describe('rad/s'),
  })
  .strict();

/** A state of the table: the pusher and each slider (in the scene's slider order), table frame. */
export const namedStateSchema = z
  .object({ pusher: namedPusherSchema, sliders: z.array(namedSliderSchema) })
  .strict();
export type NamedState = z.infer<typeof namedStateSchema>;

export class StateLengthError extends Error {
  override name = 'StateLengthError';
}

/** Names the entries of a state vector in the layout of `sliderIds` (4 + 6n entries). */
export function namedState(sliderIds: readonly string[], x: readonly number[]): NamedState {
  const n = sliderIds.length;
  if (x.length !== 4 + 6 * n)
    throw new StateLengthError(`a state of ${n} slider(s) has ${4 + 6 * n} entries, not ${x.length}`);
  const v = 2 + 3 * n;
  return {
    pusher: { x: x[0]!, y: x[1]!, vx: x[v]!, vy: x[v + 1]! },
    sliders: sliderIds.map((id, i) => {
      const p = 2 + 3 * i;
      const q = v + 2 + 3 * i;
      return { id, x: x[p]!, y: x[p + 1]!, theta: x[p + 2]!, vx: x[q]!, vy: x[q + 1]!, omega: x[q + 2]! };
    }),
  };
}

/** The state vector of a named state (the inverse of namedState). */
export function stateVector(s: NamedState): number[] {
  const poses = s.sliders.flatMap((b) => [b.x, b.y, b.theta]);
  const velocities = s.sliders.flatMap((b) => [b.vx, b.vy, b.omega]);
  return [s.pusher.x, s.pusher.y, ...poses, s.pusher.vx, s.pusher.vy, ...velocities];
}

const controlSchema = z
  .object({ vx: finite.describe('m/s, table frame'), vy: finite.describe('m/s, table frame') })
  .strict();

/**
 * A planner step as logged: the console's planner step with every state named and every control
 * as { vx, vy }. The slider ids are those of the named states.
 */
export const loggedPlannerStepSchema = plannerStepSchema
  .omit({ sliderIds: true, start: true, plan: true, predictions: true, rollouts: true })
  .extend({
    /** The measured state planning started from. */
    start: namedStateSchema,
    /** The chosen control sequence. */
    plan: z.array(controlSchema).min(1),
    /** Predicted states at each control boundary, one trajectory per Parareal iteration (0 = coarse). */
    predictions: z.array(
      z.object({ iteration: z.number().int().min(0), states: z.array(namedStateSchema) }).strict(),
    ),
    rollouts: z.array(z.array(namedStateSchema)).optional(),
  });
export type LoggedPlannerStep = z.infer<typeof loggedPlannerStepSchema>;

export function loggedPlannerStep(step: PlannerStep): LoggedPlannerStep {
  const { sliderIds, start, plan, predictions, rollouts, ...rest } = step;
  const named = (x: readonly number[]) => namedState(sliderIds, x);
  return {
    ...rest,
    start: named(start),
    plan: plan.map((u) => ({ vx: u[0]!, vy: u[1]! })),
    predictions: predictions.map((p) => ({ iteration: p.iteration, states: p.states.map(named) })),
    ...(rollouts ? { rollouts: rollouts.map((r) => r.map(named)) } : {}),
  };
}

/** The console's planner step of a logged one (the inverse of loggedPlannerStep). */
export function plannerStepOf(logged: LoggedPlannerStep): PlannerStep {
  const { start, plan, predictions, rollouts, ...rest } = logged;
  const { step, time, controlDuration, convergence, costs, replan, timings } = rest;
  return {
    step,
    time,
    sliderIds: start.sliders.map((s) => s.id),
    start: stateVector(start),
    plan: plan.map((u) => [u.vx, u.vy]),
    controlDuration,
    predictions: predictions.map((p) => ({ iteration: p.iteration, states: p.states.map(stateVector) })),
    convergence,
    costs,
    ...(rollouts ? { rollouts: rollouts.map((r) => r.map(stateVector)) } : {}),
    ...(replan ? { replan } : {}),
    timings,
  };
}

type Vector6 = readonly number[];

/** A UR tool pose (x, y, z, rotation vector), named. */
export function tcpPoseFields(p: Vector6) {
  return { x: p[0]!, y: p[1]!, z: p[2]!, rx: p[3]!, ry: p[4]!, rz: p[5]! };
}

/** A UR tool twist (linear, angular), named. */
export function tcpSpeedFields(v: Vector6) {
  return { vx: v[0]!, vy: v[1]!, vz: v[2]!, wx: v[3]!, wy: v[4]!, wz: v[5]! };
}

/** A motion-capture rigid body with its position and orientation (quaternion x, y, z, w) named. */
export function rigidBodyFields(b: {
  id: number;
  name: string | null | undefined;
  position: readonly number[];
  orientation: readonly number[];
  meanError: number;
  trackingValid: boolean;
}) {
  const [x, y, z] = b.position as [number, number, number];
  const [qx, qy, qz, qw] = b.orientation as [number, number, number, number];
  return {
    id: b.id,
    name: b.name ?? null,
    position: { x, y, z },
    orientation: { x: qx, y: qy, z: qz, w: qw },
    meanError: b.meanError,
    trackingValid: b.trackingValid,
  };
}
