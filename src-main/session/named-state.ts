/**
 * State vectors (and the robot's and motion capture's poses) as a session log stores them: with
 * named fields, not as unnamed arrays. The run
 * works with the flat layout of contract/state.ts ([pusher x, y, slider poses, pusher velocity,
 * slider velocities]); the log writes `{ pusher: { x, y, vx, vy }, sliders: [{ id, x, y, theta,
 * vx, vy, omega }] }`, so Foxglove plots `/scene/state.pusher.x` and the CSV export has columns
 * named `box.theta`. A gripper scene's states name its robot `gripper: { x, y, yaw, opening, vx,
 * vy, omega, vopening }` instead (its state is 8 + 6n long, a pusher's 4 + 6n: the length tells
 * them apart), and its controls carry the yaw rate and opening speed too. Both directions are
 * exact (playback gets back the vectors it replays). SI units: m, rad, m/s, rad/s, table frame.
 */
import { z } from 'zod';
import { plannerStepSchema, type PlannerStep } from '#contract/planner-events';

const finite = z.number();

export const namedPusherSchema = z
  .object({
    x: finite.describe('m'),
    y: finite.describe('m'),
    vx: finite.describe('m/s'),
    vy: finite.describe('m/s'),
  })
  .strict();

export const namedGripperSchema = z
  .object({
    x: finite.describe('m, grasp centre'),
    y: finite.describe('m, grasp centre'),
    yaw: finite.describe('rad, forward direction, counter-clockwise about z'),
    opening: finite.describe('m, gap between the fingers'),
    vx: finite.describe('m/s'),
    vy: finite.describe('m/s'),
    omega: finite.describe('rad/s'),
    vopening: finite.describe('m/s'),
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

/**
 * A state of the table: the robot (the pusher, or a gripper) and each slider (in the scene's
 * slider order), table frame. namedState writes exactly one robot.
 */
export const namedStateSchema = z
  .object({
    pusher: namedPusherSchema.optional(),
    gripper: namedGripperSchema.optional(),
    sliders: z.array(namedSliderSchema),
  })
  .strict();
export type NamedState = z.infer<typeof namedStateSchema>;

/** Where the robot is in the table plane: the pusher, or the gripper's grasp centre. */
export function robotPoint(s: NamedState): { x: number; y: number } {
  const r = s.pusher ?? s.gripper;
  if (!r) throw new StateLengthError('a named state without a robot');
  return { x: r.x, y: r.y };
}

export class StateLengthError extends Error {
  override name = 'StateLengthError';
}

/**
 * Names the entries of a state vector in the layout of `sliderIds`: 4 + 6n entries with a pusher,
 * 8 + 6n with a gripper.
 */
export function namedState(sliderIds: readonly string[], x: readonly number[]): NamedState {
  const n = sliderIds.length;
  const dofs = x.length === 4 + 6 * n ? 2 : x.length === 8 + 6 * n ? 4 : null;
  if (dofs === null)
    throw new StateLengthError(
      `a state of ${n} slider(s) has ${4 + 6 * n} entries (pusher) or ${8 + 6 * n} (gripper), not ${x.length}`,
    );
  const v = dofs + 3 * n;
  const sliders = sliderIds.map((id, i) => {
    const p = dofs + 3 * i;
    const q = v + dofs + 3 * i;
    return { id, x: x[p]!, y: x[p + 1]!, theta: x[p + 2]!, vx: x[q]!, vy: x[q + 1]!, omega: x[q + 2]! };
  });
  if (dofs === 2) return { pusher: { x: x[0]!, y: x[1]!, vx: x[v]!, vy: x[v + 1]! }, sliders };
  const gripper = {
    x: x[0]!,
    y: x[1]!,
    yaw: x[2]!,
    opening: x[3]!,
    vx: x[v]!,
    vy: x[v + 1]!,
    omega: x[v + 2]!,
    vopening: x[v + 3]!,
  };
  return { gripper, sliders };
}

/** The state vector of a named state (the inverse of namedState). */
export function stateVector(s: NamedState): number[] {
  const poses = s.sliders.flatMap((b) => [b.x, b.y, b.theta]);
  const velocities = s.sliders.flatMap((b) => [b.vx, b.vy, b.omega]);
  const g = s.gripper;
  if (g) return [g.x, g.y, g.yaw, g.opening, ...poses, g.vx, g.vy, g.omega, g.vopening, ...velocities];
  if (!s.pusher) throw new StateLengthError('a named state without a robot');
  return [s.pusher.x, s.pusher.y, ...poses, s.pusher.vx, s.pusher.vy, ...velocities];
}

/** A control: the pusher's (vx, vy), or a gripper's with its yaw rate and opening speed too. */
const controlSchema = z
  .object({
    vx: finite.describe('m/s, table frame'),
    vy: finite.describe('m/s, table frame'),
    omega: finite.optional().describe('rad/s, a gripper'),
    vopening: finite.optional().describe('m/s, a gripper'),
  })
  .strict();

function namedControl(u: readonly number[]): z.infer<typeof controlSchema> {
  return u.length === 4 ? { vx: u[0]!, vy: u[1]!, omega: u[2]!, vopening: u[3]! } : { vx: u[0]!, vy: u[1]! };
}

function controlVector(u: z.infer<typeof controlSchema>): number[] {
  return u.omega !== undefined && u.vopening !== undefined ? [u.vx, u.vy, u.omega, u.vopening] : [u.vx, u.vy];
}

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
    /**
     * Sampled rollouts, each an object holding its states: Foxglove's reader takes no array of
     * arrays, and drops the whole channel at one.
     */
    rollouts: z.array(z.object({ states: z.array(namedStateSchema) }).strict()).optional(),
  });
export type LoggedPlannerStep = z.infer<typeof loggedPlannerStepSchema>;

export function loggedPlannerStep(step: PlannerStep): LoggedPlannerStep {
  const { sliderIds, start, plan, predictions, rollouts, ...rest } = step;
  const named = (x: readonly number[]) => namedState(sliderIds, x);
  return {
    ...rest,
    start: named(start),
    plan: plan.map(namedControl),
    predictions: predictions.map((p) => ({ iteration: p.iteration, states: p.states.map(named) })),
    ...(rollouts ? { rollouts: rollouts.map((r) => ({ states: r.map(named) })) } : {}),
  };
}

/** The console's planner step of a logged one (the inverse of loggedPlannerStep). */
export function plannerStepOf(logged: LoggedPlannerStep): PlannerStep {
  const { start, plan, predictions, rollouts, ...rest } = logged;
  const { step, time, controlDuration, convergence, costs, replan, beforeArming, timings } = rest;
  return {
    step,
    time,
    sliderIds: start.sliders.map((s) => s.id),
    start: stateVector(start),
    plan: plan.map(controlVector),
    controlDuration,
    predictions: predictions.map((p) => ({ iteration: p.iteration, states: p.states.map(stateVector) })),
    convergence,
    costs,
    ...(rollouts ? { rollouts: rollouts.map((r) => r.states.map(stateVector)) } : {}),
    ...(replan ? { replan } : {}),
    ...(beforeArming !== undefined ? { beforeArming } : {}),
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
