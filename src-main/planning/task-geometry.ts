/**
 * What a state means for the task: has the goal object reached the goal region (or, for a grasp
 * goal, does the gripper hold it: grasp.ts), or has the run failed (an obstacle hit, an object off
 * the table, a non-goal object in the goal region of a region goal)?
 * The MPC loop checks every observed state with this; cost terms reuse the same tests so the
 * planner is penalised for exactly what ends a run.
 */
import type { EndEffector } from '#contract/end-effector/end-effector';
import { endEffectorOf } from '#contract/end-effector/registry';
import type { Gripper, Scene } from '#contract/scene';
import { layoutForScene, type State, type StateLayout } from '#contract/state';
import { tableRegion, type TableRegion } from '#contract/table-region';
import { footprintOf, footprintReach, overlap, type Footprint, type Placed } from '#physics/geometry2d';
import type { Disc } from './way-round';
import { handRegion, handRelation, isGrasped, type HandRelation } from './grasp';

export type Failure = 'obstacle-collision' | 'off-table' | 'non-goal-in-goal';

export interface Assessment {
  success: boolean;
  failure: Failure | null;
  /** Words for logs and reports, e.g. "object hit obstacle". */
  detail: string | null;
}

/** The scene facts the checks need, computed once per scene. */
export class TaskGeometry {
  readonly layout: StateLayout;
  readonly goalIndex: number;
  readonly goal: { x: number; y: number; radius: number };
  /** The table top (its outline or its size rectangle). */
  readonly table: TableRegion;
  /** The robot's tool (contract/end-effector). */
  readonly tool: EndEffector;
  /** The parallel gripper's dimensions, null for a tool without fingers (which pushes instead of grasping). */
  readonly fingers: Gripper | null;
  /** Success is a grasp of the goal object (scene goal.grasp), not reaching the region. */
  readonly graspGoal: boolean;
  readonly sliders: Footprint[];
  readonly obstacles: (Placed & { id: string })[];

  constructor(readonly scene: Scene) {
    this.layout = layoutForScene(scene);
    this.goalIndex = this.layout.sliderIndex(scene.goal.slider);
    this.goal = { ...scene.goal.center, radius: scene.goal.radius };
    this.table = tableRegion(scene.table);
    this.tool = endEffectorOf(scene);
    this.fingers = this.tool.fingers ?? null;
    this.graspGoal = scene.goal.grasp === true;
    this.sliders = scene.sliders.map((s) => footprintOf(s.shape));
    this.obstacles = scene.obstacles.map((o) => ({ id: o.id, footprint: footprintOf(o.shape), ...o.pose }));
  }

  /** Distance of slider i's centre from the goal centre (m). */
  goalDistance(x: State, i = this.goalIndex): number {
    const p = this.layout.sliderPose(x, i);
    return Math.hypot(p.x - this.goal.x, p.y - this.goal.y);
  }

  /**
   * The discs the goal object's centre must stay out of to keep `clearance` (m) from every
   * obstacle: each obstacle's bounding circle grown by the object's and the clearance.
   */
  obstacleDiscs(clearance: number): Disc[] {
    const reach = footprintReach(this.sliders[this.goalIndex]!);
    return this.obstacles.map((o) => ({
      x: o.x,
      y: o.y,
      r: footprintReach(o.footprint) + reach + clearance,
    }));
  }

  /**
   * As obstacleDiscs, for the other sliders where they stand in state x: what the goal object's
   * centre must stay out of to pass each of them with `clearance` instead of pushing it along.
   */
  otherSliderDiscs(x: State, clearance: number): Disc[] {
    const reach = footprintReach(this.sliders[this.goalIndex]!);
    const discs: Disc[] = [];
    for (let i = 0; i < this.sliders.length; i++) {
      if (i === this.goalIndex) continue;
      const p = this.layout.sliderPose(x, i);
      discs.push({ x: p.x, y: p.y, r: footprintReach(this.sliders[i]!) + reach + clearance });
    }
    return discs;
  }

  /**
   * An object is off the table once its centre leaves the table top: from there it tips over the
   * edge (MuJoCo then drops it, and the planar state no longer describes it).
   */
  offTableDistance(x: State, i: number): number {
    const p = this.layout.sliderPose(x, i);
    return Math.max(this.table.excess(p.x, p.y), 0);
  }

  placedSlider(x: State, i: number): Placed {
    return { footprint: this.sliders[i]!, ...this.layout.sliderPose(x, i) };
  }

  /** The robot's bodies as seen from above: its tool's parts (the pusher's disc, the gripper's palm and fingers). */
  placedRobot(x: State): Placed[] {
    return this.tool.parts(x);
  }

  /** Where the goal object is relative to the gripper's fingers (null for a pusher). */
  hand(x: State): HandRelation | null {
    if (!this.fingers) return null;
    return handRelation(this.fingers, this.layout.gripperPose(x), this.placedSlider(x, this.goalIndex));
  }

  /**
   * How far each object other than the goal object reaches into the space between the fingers
   * (m, 0 when outside): an object there is in the way of the grasp. Empty for a pusher.
   */
  othersInHand(x: State): number[] {
    const region = this.fingers && handRegion(this.fingers, this.layout.gripperPose(x));
    if (!region) return [];
    const depths: number[] = [];
    for (let i = 0; i < this.sliders.length; i++)
      if (i !== this.goalIndex) depths.push(Math.max(0, overlap(region, this.placedSlider(x, i)).depth));
    return depths;
  }

  /** The first obstacle touched by the pusher or any slider (contact counts), or null. */
  obstacleContact(x: State): string | null {
    for (const o of this.obstacles) {
      if (this.placedRobot(x).some((part) => overlap(part, o).depth > 0))
        return `${this.layout.robot} hit ${o.id}`;
      for (let i = 0; i < this.sliders.length; i++) {
        if (overlap(this.placedSlider(x, i), o).depth > 0) return `${this.layout.sliderIds[i]} hit ${o.id}`;
      }
    }
    return null;
  }

  /** The first failure along a path of states (an obstacle crossed between two observations). */
  firstFailure(path: readonly State[]): (Assessment & { failure: Failure }) | null {
    for (const x of path) {
      const a = this.assess(x);
      if (a.failure) return { ...a, failure: a.failure };
    }
    return null;
  }

  /**
   * Calls visit with `samples` states between x and next (next included), linearly interpolated,
   * in `scratch`; stops early when visit returns true. Predictions are states at control
   * boundaries only, and an object can graze an obstacle's edge and leave it again within one
   * control; the pusher moves in a straight line within a control, the objects roughly so.
   */
  alongControl(
    x: State,
    next: State,
    samples: number,
    scratch: State,
    visit: (y: State) => boolean | void,
  ): void {
    for (let k = 1; k <= samples; k++) {
      const f = k / samples;
      for (let j = 0; j < this.layout.velocityOffset; j++) scratch[j] = x[j]! + f * (next[j]! - x[j]!);
      if (visit(scratch) === true) return;
    }
  }

  /** The first obstacle touched on the way from x to next, checked at `samples` points (alongControl). */
  obstacleContactBetween(x: State, next: State, samples: number, scratch: State): string | null {
    let hit: string | null = null;
    this.alongControl(x, next, samples, scratch, (y) => {
      hit = this.obstacleContact(y);
      return hit !== null;
    });
    return hit;
  }

  /** Whether an object leaves the table on the way from x to next, checked at `samples` points (alongControl). */
  offTableBetween(x: State, next: State, samples: number, scratch: State): boolean {
    let off = false;
    this.alongControl(x, next, samples, scratch, (y) => {
      for (let i = 0; i < this.sliders.length && !off; i++) off = this.offTableDistance(y, i) > 0;
      return off;
    });
    return off;
  }

  assess(x: State): Assessment {
    const hit = this.obstacleContact(x);
    if (hit) return { success: false, failure: 'obstacle-collision', detail: hit };
    for (let i = 0; i < this.sliders.length; i++) {
      if (this.offTableDistance(x, i) > 0)
        return { success: false, failure: 'off-table', detail: `${this.layout.sliderIds[i]} off the table` };
    }
    if (this.graspGoal) {
      const hand = this.hand(x)!;
      return isGrasped(hand)
        ? { success: true, failure: null, detail: null }
        : { success: false, failure: null, detail: null };
    }
    for (let i = 0; i < this.sliders.length; i++) {
      if (i !== this.goalIndex && this.goalDistance(x, i) < this.goal.radius) {
        const detail = `${this.layout.sliderIds[i]} in the goal region`;
        return { success: false, failure: 'non-goal-in-goal', detail };
      }
    }
    if (this.goalDistance(x) < this.goal.radius) return { success: true, failure: null, detail: null };
    return { success: false, failure: null, detail: null };
  }
}
