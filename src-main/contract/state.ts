/**
 * The one state layout used everywhere (physics, Parareal, planner, logs, UI):
 *
 *   [ pusher x, pusher y,
 *     slider_0 x, y, theta, ..., slider_{n-1} x, y, theta,
 *     pusher vx, pusher vy,
 *     slider_0 vx, vy, omega, ..., slider_{n-1} vx, vy, omega ]
 *
 * Length 4 + 6n for n sliders. Positions in metres, angles in radians (counter-clockwise about
 * the table z axis), velocities in m/s and rad/s, all in the table frame.
 *
 * Parareal adds and subtracts states (x = C_new + F_old - C_old). Angles are compared on the
 * circle: differences are wrapped to (-pi, pi] so that 3.13 rad and -3.13 rad differ by 0.02 rad,
 * not by 6.26 rad.
 */
export type State = Float64Array;

export class StateLayout {
  readonly size: number;
  /** Offset of the velocity half of the state. */
  readonly velocityOffset: number;
  /** Indices that hold angles (slider theta); velocities are never wrapped. */
  readonly angleIndices: readonly number[];
  readonly names: readonly string[];

  constructor(readonly sliderIds: readonly string[]) {
    const n = sliderIds.length;
    this.velocityOffset = 2 + 3 * n;
    this.size = 2 * this.velocityOffset;
    this.angleIndices = sliderIds.map((_, i) => 2 + 3 * i + 2);
    const names = ['pusher.x', 'pusher.y'];
    for (const id of sliderIds) names.push(`${id}.x`, `${id}.y`, `${id}.theta`);
    names.push('pusher.vx', 'pusher.vy');
    for (const id of sliderIds) names.push(`${id}.vx`, `${id}.vy`, `${id}.omega`);
    this.names = names;
  }

  get sliderCount(): number {
    return this.sliderIds.length;
  }

  create(): State {
    return new Float64Array(this.size);
  }

  sliderIndex(id: string): number {
    const i = this.sliderIds.indexOf(id);
    if (i < 0) throw new Error(`unknown slider "${id}"`);
    return i;
  }

  /** Offset of slider i's pose (x, y, theta). */
  posOffset(i: number): number {
    return 2 + 3 * i;
  }

  /** Offset of slider i's velocity (vx, vy, omega). */
  velOffset(i: number): number {
    return this.velocityOffset + 2 + 3 * i;
  }

  pusherPosition(s: State): [number, number] {
    return [s[0]!, s[1]!];
  }

  pusherVelocity(s: State): [number, number] {
    return [s[this.velocityOffset]!, s[this.velocityOffset + 1]!];
  }

  sliderPose(s: State, i: number): { x: number; y: number; theta: number } {
    const o = this.posOffset(i);
    return { x: s[o]!, y: s[o + 1]!, theta: s[o + 2]! };
  }

  sliderVelocity(s: State, i: number): { vx: number; vy: number; omega: number } {
    const o = this.velOffset(i);
    return { vx: s[o]!, vy: s[o + 1]!, omega: s[o + 2]! };
  }

  setPusher(s: State, x: number, y: number, vx = 0, vy = 0): void {
    s[0] = x;
    s[1] = y;
    s[this.velocityOffset] = vx;
    s[this.velocityOffset + 1] = vy;
  }

  setSlider(
    s: State,
    i: number,
    pose: { x: number; y: number; theta: number },
    vel = { vx: 0, vy: 0, omega: 0 },
  ): void {
    const p = this.posOffset(i);
    s[p] = pose.x;
    s[p + 1] = pose.y;
    s[p + 2] = pose.theta;
    const v = this.velOffset(i);
    s[v] = vel.vx;
    s[v + 1] = vel.vy;
    s[v + 2] = vel.omega;
  }

  /** a - b, with angle entries wrapped to (-pi, pi]. */
  difference(a: State, b: State, out: State = this.create()): State {
    for (let j = 0; j < this.size; j++) out[j] = a[j]! - b[j]!;
    for (const j of this.angleIndices) out[j] = wrapAngle(out[j]!);
    return out;
  }

  /** a + d where d is a difference; angle entries of the result are wrapped to (-pi, pi]. */
  sum(a: State, d: State, out: State = this.create()): State {
    for (let j = 0; j < this.size; j++) out[j] = a[j]! + d[j]!;
    for (const j of this.angleIndices) out[j] = wrapAngle(out[j]!);
    return out;
  }

  /** Largest change of any slider pose between two states: [metres, radians]. */
  maxSliderPoseChange(a: State, b: State): { translation: number; rotation: number } {
    let translation = 0;
    let rotation = 0;
    for (let i = 0; i < this.sliderCount; i++) {
      const o = this.posOffset(i);
      translation = Math.max(translation, Math.hypot(a[o]! - b[o]!, a[o + 1]! - b[o + 1]!));
      rotation = Math.max(rotation, Math.abs(wrapAngle(a[o + 2]! - b[o + 2]!)));
    }
    return { translation, rotation };
  }

  /** Plain-object view for logs and JSON output: { "pusher.x": ..., ... }. */
  toRecord(s: State): Record<string, number> {
    const r: Record<string, number> = {};
    this.names.forEach((n, j) => (r[n] = s[j]!));
    return r;
  }
}

/** Wraps an angle to (-pi, pi]. Exact for inputs already in range (returns them unchanged). */
export function wrapAngle(a: number): number {
  if (a > -Math.PI && a <= Math.PI) return a;
  const twoPi = 2 * Math.PI;
  let r = a % twoPi;
  if (r <= -Math.PI) r += twoPi;
  else if (r > Math.PI) r -= twoPi;
  return r;
}

export function layoutForScene(scene: { sliders: readonly { id: string }[] }): StateLayout {
  return new StateLayout(scene.sliders.map((s) => s.id));
}

/** The scene's initial state: everything at rest at its initial pose. */
export function initialState(scene: {
  pusher: { position: { x: number; y: number } };
  sliders: readonly { id: string; pose: { x: number; y: number; theta: number } }[];
}): State {
  const layout = layoutForScene(scene);
  const s = layout.create();
  layout.setPusher(s, scene.pusher.position.x, scene.pusher.position.y);
  scene.sliders.forEach((sl, i) => layout.setSlider(s, i, sl.pose));
  return s;
}
