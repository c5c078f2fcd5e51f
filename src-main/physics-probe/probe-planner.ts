/**
 * The planner of an identification run: no optimisation, a script of probing pushes
 * (probe-pushes.ts) played in closed loop from each observed state. Each push is approached (round
 * the object at a distance, then in to the pre-push point), then pushed; the object comes to rest
 * after it. It plans through the MPC loop like any planner, so the run's every check and the
 * supervisor apply, and it predicts each control with the fine model on the run's workers, so the
 * run logs its prediction error as any run does. When the script is played it says so
 * (`finished`), and the loop ends the run.
 */
import type { Scene } from '#contract/scene';
import type { Control, State } from '#contract/state';
import type { FinePool } from '../parareal/fine-pool';
import type { Plan, PlanContext, Planner } from '../planning/planner';
import type { TaskGeometry } from '../planning/task-geometry';
import { contactReach, PRE_PUSH_GAP, prePush, probeDirection, type ProbePush } from './probe-pushes';
import { monotonicSeconds } from '../common/clock';

/** m: within this of the pre-push point the approach is done. */
const AT_POINT = 0.002;
/** m beyond contact the approach keeps while it goes round the object. */
const ORBIT_GAP = 0.02;
/** rad of the orbit at most per control: the chord between its ends then passes 13 mm clear of contact (a 51 mm object, a 14.5 mm pusher). */
const MAX_ARC = 0.8;
/** s the arm holds still after a push, for the object to come to rest where the cameras see it. */
const REST_AFTER_PUSH = 0.5;

export interface ProbePlannerOptions {
  geometry: TaskGeometry;
  pushes: readonly ProbePush[];
  controlDuration: number;
  /** m/s: the fastest the pusher may go (the scene's limit within the lab's). */
  maxSpeed: number;
  pool: FinePool;
  /** The scene the fine workers predict with (the task's prediction settings). */
  predictionScene: Scene;
}

type Phase =
  | { kind: 'approach'; direction: [number, number] }
  | { kind: 'push'; direction: [number, number]; from: { x: number; y: number } };

export class ProbePlanner implements Planner {
  /** Pushes done, and those left out because no way was clear where the object stood. */
  readonly done: number[] = [];
  readonly skipped: number[] = [];
  private index = 0;
  private phase: Phase | null = null;
  private home: { x: number; y: number } | null = null;
  private readonly sceneKey: string;

  constructor(private readonly o: ProbePlannerOptions) {
    this.sceneKey = o.pool.registerScene(o.predictionScene);
  }

  /** Every push of the script played (or left out). */
  finished(): boolean {
    return this.index >= this.o.pushes.length;
  }

  async plan(ctx: PlanContext): Promise<Plan> {
    const { u, restTime } = this.next(ctx.x);
    const t0 = monotonicSeconds();
    const r = await this.o.pool.run(
      { sceneKey: this.sceneKey, x: ctx.x, controls: [[...u]], dt: this.o.controlDuration },
      ctx.signal,
    );
    return {
      controls: [u],
      restTime,
      iterates: [[ctx.x, Float64Array.from(r.states[r.states.length - 1]!)]],
      iterationLabels: [1],
      changes: [],
      costs: [0],
      predictionTime: monotonicSeconds() - t0,
      sequences: 1,
      work: { cpu: r.cpu, steps: r.steps, solverIterations: r.solverIterations },
    };
  }

  /** The next control from observed state x, advancing the script as its pushes are done. */
  private next(x: State): { u: Control; restTime: number } {
    const g = this.o.geometry;
    const s = g.layout.sliderPose(x, g.goalIndex);
    this.home ??= { x: s.x, y: s.y };
    for (;;) {
      const push = this.o.pushes[this.index];
      // Played: the loop ends the run before asking again; hold still meanwhile.
      if (!push) return { u: [0, 0], restTime: 0 };
      if (!this.phase) {
        const direction = probeDirection(g, x, push, this.home);
        if (!direction) {
          this.skipped.push(this.index++);
          continue;
        }
        this.phase = { kind: 'approach', direction };
      }
      const [px, py] = g.layout.pusherPosition(x);
      const p = { x: px, y: py };
      if (this.phase.kind === 'approach') {
        const target = prePush(g, x, push, this.phase.direction);
        if (Math.hypot(target.x - p.x, target.y - p.y) > AT_POINT)
          return { u: this.towards(p, this.approachPoint(p, s, target)), restTime: 0 };
        this.phase = { kind: 'push', direction: this.phase.direction, from: p };
      }
      const { direction, from } = this.phase;
      const left = PRE_PUSH_GAP + push.distance - Math.hypot(p.x - from.x, p.y - from.y);
      const step = Math.min(push.speed, this.o.maxSpeed) * this.o.controlDuration;
      if (left > 1e-3) {
        const speed = Math.min(push.speed, this.o.maxSpeed, left / this.o.controlDuration);
        const last = left <= step + 1e-3;
        if (last) this.finishPush();
        return {
          u: [direction[0] * speed, direction[1] * speed],
          restTime: last ? REST_AFTER_PUSH : 0,
        };
      }
      this.finishPush();
    }
  }

  private finishPush(): void {
    this.done.push(this.index++);
    this.phase = null;
  }

  /**
   * Where the approach heads next: straight to the target when the way keeps clear of the object,
   * else out to the orbit and round it towards the target's side.
   */
  private approachPoint(
    p: { x: number; y: number },
    s: { x: number; y: number },
    target: { x: number; y: number },
  ): { x: number; y: number } {
    const reach = contactReach(this.o.geometry);
    if (segmentDistance(s, p, target) >= reach + PRE_PUSH_GAP / 2) return target;
    const orbit = reach + ORBIT_GAP;
    const r = Math.hypot(p.x - s.x, p.y - s.y);
    const at = Math.atan2(p.y - s.y, p.x - s.x);
    if (r < orbit - AT_POINT) return { x: s.x + Math.cos(at) * orbit, y: s.y + Math.sin(at) * orbit };
    const goal = Math.atan2(target.y - s.y, target.x - s.x);
    let turn = goal - at;
    while (turn > Math.PI) turn -= 2 * Math.PI;
    while (turn < -Math.PI) turn += 2 * Math.PI;
    // On the target's side already: the straight way in keeps clear of the object.
    if (Math.abs(turn) < 1e-3) return target;
    // The chord of a control's arc cuts inside the orbit: at most MAX_ARC keeps it clear of contact.
    const arc = Math.min(Math.abs(turn), (this.o.maxSpeed * this.o.controlDuration) / orbit, MAX_ARC);
    const a = at + Math.sign(turn) * arc;
    return { x: s.x + Math.cos(a) * orbit, y: s.y + Math.sin(a) * orbit };
  }

  /** The velocity that takes the pusher from p to q within one control, at most maxSpeed. */
  private towards(p: { x: number; y: number }, q: { x: number; y: number }): Control {
    const dx = q.x - p.x;
    const dy = q.y - p.y;
    const d = Math.hypot(dx, dy);
    if (d < 1e-9) return [0, 0];
    const speed = Math.min(this.o.maxSpeed, d / this.o.controlDuration);
    return [(dx / d) * speed, (dy / d) * speed];
  }
}

/** Distance from point c to the segment a-b. */
function segmentDistance(
  c: { x: number; y: number },
  a: { x: number; y: number },
  b: { x: number; y: number },
): number {
  const vx = b.x - a.x;
  const vy = b.y - a.y;
  const len2 = vx * vx + vy * vy;
  const t = len2 > 0 ? Math.max(0, Math.min(1, ((c.x - a.x) * vx + (c.y - a.y) * vy) / len2)) : 0;
  return Math.hypot(c.x - a.x - t * vx, c.y - a.y - t * vy);
}
