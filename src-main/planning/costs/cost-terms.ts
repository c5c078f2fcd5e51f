/**
 * Cost terms as composable pieces. A task file lists the terms it wants with their weights; each
 * term is either a running cost L(x_t, x_{t+1}, u_t) charged per control or a terminal cost
 * L_f(x_n) charged on the last predicted state (WAFR 2018 Alg. 5).
 *
 * ISRR 2019 Sec. III: obstacle-proximity + control-smoothness (running), goal-distance (terminal).
 * WAFR 2018 Eq. 4: edge + disturbance + action (running), goal-region (terminal).
 * CVS 2020 Sec. 5: goal-region for the goal object, failure (others off the table or in the goal
 * region) and disturbance, and our goal-keep-out (running: others nearing the goal region).
 * WAFR 2018 Sec. 5, grasping in clutter: grasp (terminal, L_f = d_T^2 + w_phi phi_T^2), and our
 * hand-clear (running: other objects between the fingers).
 */
import { z } from 'zod';
import { type Control } from '#contract/state';
import type { State } from '#contract/state';
import type { TaskGeometry } from '../task-geometry';
import { graspError } from '../grasp';
import { overlap } from '#physics/geometry2d';
import { wayRoundLength } from '../way-round';
import { innerCorners, wayInsideLength, type Corner } from '../way-inside';

const finite = z.number().refine(Number.isFinite, 'must be a finite number');
const nonNegative = finite.refine((v) => v >= 0, 'must be 0 or more');

export const costTermSchema = z.discriminatedUnion('term', [
  z
    .object({
      term: z.literal('obstacle-proximity'),
      /** w_s: weight of 1/|slider - obstacle|^2 (goal slider, obstacle centre). */
      sliderWeight: nonNegative,
      /** w_p: weight of 1/|pusher - obstacle|^2. */
      pusherWeight: nonNegative,
    })
    .strict(),
  z
    .object({
      term: z.literal('obstacle-clearance'),
      /** Cost when an object or the pusher touches an obstacle; falls quadratically to 0 at the margin. */
      weight: nonNegative,
      /** Clearance objects should keep from obstacles (m): what the execution may drift in one control. */
      sliderMargin: nonNegative,
      /** Clearance the pusher should keep from obstacles (m). */
      pusherMargin: nonNegative,
    })
    .strict(),
  z.object({ term: z.literal('control-smoothness'), weight: nonNegative }).strict(),
  z
    .object({
      term: z.literal('goal-distance'),
      weight: nonNegative,
      /**
       * Measure d along the shortest way round the obstacles that keeps the planned clearance
       * (plannedClearance) between the goal object and them (way-round.ts); absent or false: the
       * straight distance, as the papers do.
       */
      aroundObstacles: z.boolean().optional(),
    })
    .strict(),
  /** Running goal distance: w * d^2 after every control, so progress now beats the same progress later. */
  z
    .object({
      term: z.literal('goal-progress'),
      weight: nonNegative,
      aroundObstacles: z.boolean().optional(),
    })
    .strict(),
  z.object({ term: z.literal('goal-region'), weight: nonNegative }).strict(),
  z
    .object({
      term: z.literal('edge'),
      /** w_e */
      weight: nonNegative,
      /** k: growth rate of the edge cost with the distance beyond the safe zone (1/m). */
      k: nonNegative,
      /** The safe zone is the table (its outline, if it has one) shrunk by this margin on every side (m). */
      safeMargin: nonNegative,
    })
    .strict(),
  z.object({ term: z.literal('disturbance'), weight: nonNegative }).strict(),
  z.object({ term: z.literal('action'), cost: nonNegative }).strict(),
  z.object({ term: z.literal('failure'), weight: nonNegative }).strict(),
  z
    .object({
      term: z.literal('goal-keep-out'),
      /** Cost per control of another slider at the goal region's edge; falls quadratically to 0 at the margin. */
      weight: nonNegative,
      /** How far outside the goal region another slider's centre starts to cost (m). */
      margin: finite.refine((v) => v > 0, 'must be more than 0'),
    })
    .strict(),
  z
    .object({
      term: z.literal('grasp'),
      /** Weight of L_f (1/m^2); a gripper scene only. */
      weight: nonNegative,
      /** w_phi: weight of phi_T^2 against d_T^2 (m^2/rad^2). */
      angleWeight: nonNegative,
    })
    .strict(),
  z
    .object({
      term: z.literal('hand-clear'),
      /** Cost per control and per other object that has entered the hand by `depth` or more; a gripper scene only. */
      weight: nonNegative,
      /** Depth into the space between the fingers at which an object costs the full weight (m). */
      depth: finite.refine((v) => v > 0, 'must be more than 0'),
    })
    .strict(),
  z
    .object({
      term: z.literal('contact'),
      /** Weight of the squared gap between the pusher and the goal object (m^-2). */
      weight: nonNegative,
    })
    .strict(),
]);
export type CostTermSpec = z.infer<typeof costTermSchema>;

/**
 * The planner's berth for tasks whose costs name none (m): what plans keep between objects and
 * obstacles or the table's inner corners. A cost margin, not a safety limit: the supervisor's own
 * clearance is LOOKAHEAD_CLEARANCE (contract/safety-limits.ts), which holds without any cost.
 */
export const DEFAULT_COST_MARGIN = 0.02;

/**
 * The clearance (m) plans keep between the goal object and obstacles: the obstacle-clearance
 * term's margin, so the cost's berth, the way round the goal terms measure and the fresh
 * candidates' headings are one.
 */
export function plannedClearance(specs: readonly CostTermSpec[]): number {
  const term = specs.find((c) => c.term === 'obstacle-clearance');
  return term?.term === 'obstacle-clearance' ? term.sliderMargin : DEFAULT_COST_MARGIN;
}

/**
 * The margin (m) the way to the goal keeps from the table outline's inner corners (way-inside.ts):
 * the edge term's safe margin, so the way runs inside the zone the edge cost calls safe.
 */
export function tableMargin(specs: readonly CostTermSpec[]): number {
  const term = specs.find((c) => c.term === 'edge');
  return term?.term === 'edge' ? term.safeMargin : DEFAULT_COST_MARGIN;
}

/** The inner corners of the task's table, each a disc of radius `margin` (none on a convex table). */
export function tableCorners(g: TaskGeometry, margin: number): Corner[] {
  return innerCorners(g.scene.table.outline, margin);
}

/**
 * The goal object's distance to the goal centre: straight, or round the obstacles with the
 * planned clearance (the discs the object's centre must stay out of: each obstacle grown by the
 * object's reach and the clearance); on a table with inner corners, at least the way inside the
 * table round them (way-inside.ts).
 */
function goalDistanceMeasure(
  g: TaskGeometry,
  around: boolean,
  clearance: number,
  corners: readonly Corner[],
): (x: State) => number {
  const inside = (x: State) => wayInsideLength(g.layout.sliderPose(x, g.goalIndex), g.goal, corners);
  if (!around || g.obstacles.length === 0) return corners.length === 0 ? (x) => g.goalDistance(x) : inside;
  const discs = g.obstacleDiscs(clearance);
  const round = (x: State) => wayRoundLength(g.layout.sliderPose(x, g.goalIndex), g.goal, discs);
  return corners.length === 0 ? round : (x) => Math.max(round(x), inside(x));
}

/** Points checked along each predicted control by the terms that look between states. */
const CLEARANCE_SAMPLES = 5;

/**
 * Points checked along each predicted control for the table's edge on a table with inner corners:
 * a fast push (up to 0.3 m in a 1 s control) can carry the object across a cut-out corner between
 * two states on the table, which ends the run (the loop checks every observed state). One point
 * per 1.5 cm of such a push. A convex table needs none: a straight move between two points on it
 * stays on it.
 */
const TABLE_SAMPLES = 20;

export interface Transition {
  x: State;
  next: State;
  u: Control;
  /** The control before u (the last executed one for t = 0). */
  uPrev: Control;
}

export interface CostTerm {
  readonly name: CostTermSpec['term'];
  running?(t: Transition): number;
  terminal?(x: State): number;
}

/** The spec of one kind of term. */
type TermSpec<T extends CostTermSpec['term']> = Extract<CostTermSpec, { term: T }>;

/**
 * A term of the cost; `clearance`: what plans keep from obstacles (plannedClearance of the task's
 * terms); `margin`: what the way to the goal keeps from the table's inner corners (tableMargin).
 */
export function buildCostTerm(
  spec: CostTermSpec,
  g: TaskGeometry,
  clearance: number,
  margin = DEFAULT_COST_MARGIN,
): CostTerm {
  const corners = tableCorners(g, margin);
  switch (spec.term) {
    case 'obstacle-proximity':
      return obstacleProximity(spec, g);
    case 'obstacle-clearance':
      return obstacleClearance(spec, g);
    case 'control-smoothness':
      return {
        name: spec.term,
        running: ({ u, uPrev }) => {
          let c = 0;
          for (let j = 0; j < u.length; j++) c += (u[j]! - uPrev[j]!) ** 2;
          return spec.weight * c;
        },
      };
    case 'goal-distance': {
      const d = goalDistanceMeasure(g, spec.aroundObstacles === true, clearance, corners);
      return { name: spec.term, terminal: (x) => spec.weight * d(x) ** 2 };
    }
    case 'goal-progress': {
      // Our addition: with a terminal goal cost only, a plan that waits and then pushes fast costs
      // the same as one that pushes now, and a receding horizon executes the wait again and again.
      const d = goalDistanceMeasure(g, spec.aroundObstacles === true, clearance, corners);
      return { name: spec.term, running: ({ next }) => spec.weight * d(next) ** 2 };
    }
    case 'goal-region': {
      const d = goalDistanceMeasure(g, false, clearance, corners);
      return {
        name: spec.term,
        terminal: (x) => spec.weight * Math.max(0, d(x) - g.goal.radius) ** 2,
      };
    }
    case 'edge':
      return edge(spec, g, corners);
    case 'disturbance':
      return disturbance(spec, g);
    case 'action':
      return { name: spec.term, running: () => spec.cost };
    case 'failure':
      return failure(spec, g, corners);
    case 'goal-keep-out':
      return goalKeepOut(spec, g);
    case 'grasp':
      return grasp(spec, g);
    case 'hand-clear':
      return handClear(spec, g);
    case 'contact':
      return contact(spec, g);
  }
}

function obstacleProximity(spec: TermSpec<'obstacle-proximity'>, g: TaskGeometry): CostTerm {
  const L = g.layout;
  return {
    name: spec.term,
    running: ({ next }) => {
      const s = L.sliderPose(next, g.goalIndex);
      let c = 0;
      for (const o of g.obstacles) {
        c += spec.sliderWeight / Math.max((s.x - o.x) ** 2 + (s.y - o.y) ** 2, 1e-6);
        c += spec.pusherWeight / Math.max((next[0]! - o.x) ** 2 + (next[1]! - o.y) ** 2, 1e-6);
      }
      return c;
    },
  };
}

/**
 * Our addition: the papers' 1/d^2 term changes little between a near miss and a skim (2.4 against
 * 1.8 at 15 mm clearance), so the optimizer shaves corners and the execution, which never follows
 * a prediction exactly, then clips the obstacle. A hinge on the clearance between footprints
 * charges the skim and leaves the wide berth free. Checked along the control (as the failure term
 * is), since a push can graze an edge between two states.
 */
function obstacleClearance(spec: TermSpec<'obstacle-clearance'>, g: TaskGeometry): CostTerm {
  const L = g.layout;
  const scratch = L.create();
  const penalty = (gap: number, margin: number): number =>
    margin > 0 && gap < margin ? ((margin - Math.max(gap, 0)) / margin) ** 2 : gap < 0 ? 1 : 0;
  const at = (y: State): number => {
    let c = 0;
    for (const o of g.obstacles) {
      for (const part of g.placedRobot(y))
        c = Math.max(c, penalty(-overlap(part, o).depth, spec.pusherMargin));
      for (let i = 0; i < L.sliderCount; i++)
        c = Math.max(c, penalty(-overlap(g.placedSlider(y, i), o).depth, spec.sliderMargin));
    }
    return c;
  };
  return {
    name: spec.term,
    running: ({ x, next }) => {
      if (g.obstacles.length === 0) return 0;
      let c = 0;
      g.alongControl(x, next, CLEARANCE_SAMPLES, scratch, (y) => {
        c = Math.max(c, at(y));
      });
      return spec.weight * c;
    },
  };
}

function edge(spec: TermSpec<'edge'>, g: TaskGeometry, corners: readonly Corner[]): CostTerm {
  const L = g.layout;
  const safe = g.table.shrunk(spec.safeMargin);
  const scratch = L.create();
  // Each object's deepest point beyond the safe zone: at the control's end, or with inner
  // corners at TABLE_SAMPLES points along it (next included), all objects in one pass.
  const deepest = new Float64Array(L.sliderCount);
  const visit = (y: State): void => {
    for (let i = 0; i < L.sliderCount; i++) {
      const p = L.sliderPose(y, i);
      deepest[i] = Math.max(deepest[i]!, safe.excess(p.x, p.y));
    }
  };
  return {
    name: spec.term,
    running: ({ x, next }) => {
      deepest.fill(-Infinity);
      if (corners.length > 0) g.alongControl(x, next, TABLE_SAMPLES, scratch, visit);
      else visit(next);
      let c = 0;
      for (const d of deepest) if (d > 0) c += spec.weight * Math.exp(spec.k * d);
      return c;
    },
  };
}

function disturbance(spec: TermSpec<'disturbance'>, g: TaskGeometry): CostTerm {
  const L = g.layout;
  return {
    name: spec.term,
    running: ({ x, next }) => {
      let c = 0;
      for (let i = 0; i < L.sliderCount; i++) {
        if (i === g.goalIndex) continue;
        const a = L.sliderPose(x, i);
        const b = L.sliderPose(next, i);
        c += (b.x - a.x) ** 2 + (b.y - a.y) ** 2;
      }
      return spec.weight * c;
    },
  };
}

function failure(spec: TermSpec<'failure'>, g: TaskGeometry, corners: readonly Corner[]): CostTerm {
  const scratch = g.layout.create();
  return {
    name: spec.term,
    running: ({ x, next }) =>
      g.assess(next).failure ||
      (g.obstacles.length > 0 && g.obstacleContactBetween(x, next, CLEARANCE_SAMPLES, scratch)) ||
      (corners.length > 0 && g.offTableBetween(x, next, TABLE_SAMPLES, scratch))
        ? spec.weight
        : 0,
  };
}

/**
 * Our addition to CVS 2020's failure cost, which charges another slider only once it is in the
 * goal region: within a 4 s horizon the goal object pushed straight at the goal drives a slider in
 * its way towards the region without entering it yet, so that push looked best and the slider was
 * in the region a few controls later (failed runs of the first sampled layouts). Charging the
 * approach lets the planner see it coming and push round.
 */
function goalKeepOut(spec: TermSpec<'goal-keep-out'>, g: TaskGeometry): CostTerm {
  const L = g.layout;
  return {
    name: spec.term,
    running: ({ next }) => {
      let c = 0;
      for (let i = 0; i < L.sliderCount; i++) {
        if (i === g.goalIndex) continue;
        const gap = g.goalDistance(next, i) - g.goal.radius;
        if (gap < spec.margin) c += ((spec.margin - Math.max(gap, 0)) / spec.margin) ** 2;
      }
      return spec.weight * c;
    },
  };
}

function grasp(spec: TermSpec<'grasp'>, g: TaskGeometry): CostTerm {
  const gripper = g.fingers;
  if (!gripper) throw new Error('the grasp cost term needs a gripper scene');
  const L = g.layout;
  return {
    name: spec.term,
    terminal: (x) => {
      const e = graspError(gripper, L.gripperPose(x), L.sliderPose(x, g.goalIndex));
      return spec.weight * (e.d ** 2 + spec.angleWeight * e.phi ** 2);
    },
  };
}

/**
 * Our addition to WAFR's L_f, which measures only the target from the palm: an open hand driven
 * straight at the target scoops up whatever lies on the way (all 4 runs of the first clutter
 * experiment ended with a neighbour in the hand and the target out of reach), and the grasp cost
 * cannot see it. Charged per control, so a plan that takes an object in early costs more than one
 * that brushes it at the end.
 */
function handClear(spec: TermSpec<'hand-clear'>, g: TaskGeometry): CostTerm {
  if (!g.fingers) throw new Error('the hand-clear cost term needs a gripper scene');
  return {
    name: spec.term,
    running: ({ next }) => {
      let c = 0;
      for (const d of g.othersInHand(next)) c += Math.min(1, d / spec.depth);
      return spec.weight * c;
    },
  };
}

/**
 * Our addition to the papers' costs: once the pusher has lost the object, the terminal goal cost no
 * longer changes with small changes of the controls and the optimizer wanders; a small pull back
 * to the object keeps the search where pushing happens.
 */
function contact(spec: TermSpec<'contact'>, g: TaskGeometry): CostTerm {
  const L = g.layout;
  return {
    name: spec.term,
    running: ({ next }) => {
      const s = { footprint: g.sliders[g.goalIndex]!, ...L.sliderPose(next, g.goalIndex) };
      const depth = Math.max(...g.placedRobot(next).map((part) => overlap(part, s).depth));
      return spec.weight * Math.max(0, -depth) ** 2;
    },
  };
}
