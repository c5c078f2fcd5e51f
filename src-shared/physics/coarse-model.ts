/**
 * The analytical coarse pushing model of ISRR 2019 (Eq. 6-9): a kinematic model that is cheap to
 * evaluate and only roughly right.
 *
 * - The pusher moves exactly with the commanded velocity (Eq. 9).
 * - Each slider is moved with the pusher's velocity for the fraction p_c of the step during which
 *   the pusher is in contact with it (Eq. 6-7). The contact starts where the pusher's straight path
 *   first meets the slider's footprint grown by the pusher radius (for a cylinder: the circle of
 *   radius r_slider + r_pusher).
 * - The slider turns at omega = K_omega * |u| * sin(theta) / |r_c| (Eq. 7), where r_c runs from the
 *   slider centre to the contact point and theta is the angle from r_c to u; |omega| is clamped to
 *   maxOmega as in the reference implementation.
 * - Velocities follow Eq. 8: a pushed slider takes (u_x, u_y, omega); an untouched slider keeps the
 *   velocity it had (the model does not integrate it: velocities only seed the fine model).
 *
 * It knows no slider-slider interaction: a slider never pushes another one. Overlaps it creates
 * (a pushed slider driven into another slider) are removed by the infeasible-state
 * projection, which is the best a kinematic model can do. Several sliders are each treated
 * independently against the pusher.
 */
import { pusherRadius } from '#contract/end-effector/registry';
import type { Scene } from '#contract/scene';
import type { State, StateLayout } from '#contract/state';
import { layoutForScene, wrapAngle } from '#contract/state';
import { closestPoint, firstTouch, footprintOf, type Footprint } from './geometry2d';
import { projectFeasible, projectionGeometry, type ProjectionGeometry } from './projection';

export interface CoarseParams {
  pusherRadius: number;
  kOmega: number;
  maxOmega: number;
}

export class AnalyticalCoarseModel {
  readonly layout: StateLayout;
  private readonly footprints: Footprint[];
  private readonly params: CoarseParams;
  private readonly projection: ProjectionGeometry;

  constructor(scene: Scene) {
    this.layout = layoutForScene(scene);
    this.footprints = scene.sliders.map((s) => footprintOf(s.shape));
    this.params = {
      pusherRadius: pusherRadius(scene, 'the analytical coarse model'),
      kOmega: scene.coarse.kOmega,
      maxOmega: scene.coarse.maxOmega,
    };
    this.projection = projectionGeometry(scene);
  }

  /** C(x, u, dt): the state after holding pusher velocity (ux, uy) for dt seconds. */
  step(x: State, ux: number, uy: number, dt: number, out: State = this.layout.create()): State {
    const L = this.layout;
    if (out !== x) out.set(x);
    const [px, py] = L.pusherPosition(x);
    const dx = ux * dt;
    const dy = uy * dt;
    const speed = Math.hypot(ux, uy);
    for (let i = 0; i < L.sliderCount; i++) {
      const pose = L.sliderPose(x, i);
      const body = { footprint: this.footprints[i]!, ...pose };
      const tTouch = speed > 0 ? firstTouch(px, py, dx, dy, this.params.pusherRadius, body) : null;
      if (tTouch === null || !movingTowards(px + tTouch * dx, py + tTouch * dy, ux, uy, body)) continue;
      const pc = 1 - tTouch;
      if (pc <= 0) continue;
      // Contact point on the slider where the pusher meets it.
      const [cx, cy] = closestPoint(body, px + tTouch * dx, py + tTouch * dy);
      const rcx = cx - pose.x;
      const rcy = cy - pose.y;
      const rc = Math.hypot(rcx, rcy);
      // sin(theta) * |r_c| * |u| is the z component of r_c x u.
      const cross = rcx * uy - rcy * ux;
      let omega = rc > 1e-9 ? (this.params.kOmega * cross) / (rc * rc) : 0;
      omega = Math.max(-this.params.maxOmega, Math.min(this.params.maxOmega, omega));
      L.setSlider(
        out,
        i,
        {
          x: pose.x + ux * pc * dt,
          y: pose.y + uy * pc * dt,
          theta: wrapAngle(pose.theta + omega * pc * dt),
        },
        { vx: ux, vy: uy, omega },
      );
    }
    L.setPusher(out, px + dx, py + dy, ux, uy);
    projectFeasible(out, L, this.projection);
    return out;
  }
}

/** True when the pusher at (qx, qy) moving along u approaches the body (not sliding off or away). */
function movingTowards(
  qx: number,
  qy: number,
  ux: number,
  uy: number,
  body: { footprint: Footprint; x: number; y: number; theta: number },
): boolean {
  const [cx, cy] = closestPoint(body, qx, qy);
  return (cx - qx) * ux + (cy - qy) * uy > 0;
}
