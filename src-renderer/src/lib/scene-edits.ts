/**
 * The scene editor's operations on a scene: add, move, resize and remove obstacles and objects
 * (sliders). Each returns a new plain scene for the core to validate; none changes its argument.
 * What they place or size is rounded to the editor's resolution (units.ts).
 */
import type { Obstacle, Scene, Shape, Slider } from '#contract/scene';
import { SCENE_LIMITS } from '#contract/safety-limits';
import { boundingRadius } from '#contract/scene';
import { robotStart } from '#contract/end-effector/registry';
import { toolReach } from '#contract/jog-path';
import { tableRegion } from '#contract/table-region';
import { plainCopy } from './table-view';
import { LENGTH_STEP, roundLength } from './units';

export type EditedKind = 'obstacles' | 'sliders';

/** A new object's footprint: the shipped scene's 35 mm cylinder. */
const NEW_RADIUS = 0.035;
const NEW_HEIGHT = 0.05;

/** The first id `prefix` + n not taken by a slider or an obstacle. */
function freeId(scene: Scene, prefix: string): string {
  const taken = new Set([...scene.sliders.map((s) => s.id), ...scene.obstacles.map((o) => o.id)]);
  for (let n = 1; ; n++) if (!taken.has(`${prefix}${n}`)) return `${prefix}${n}`;
}

/**
 * A free spot on the table for a new object of `radius`: the first point of a grid over the table
 * (from its centre outwards) that keeps clear of every object, the pusher and the goal; the
 * table's centre when the table is full.
 */
export function freeSpot(scene: Scene, radius: number): { x: number; y: number } {
  const region = tableRegion(scene.table).shrunk(radius);
  const busy = [
    ...scene.sliders.map((s) => ({ ...s.pose, r: boundingRadius(s.shape) })),
    ...scene.obstacles.map((o) => ({ ...o.pose, r: boundingRadius(o.shape) })),
    { ...scene.goal.center, r: scene.goal.radius },
    { ...robotStart(scene), r: toolReach(scene) },
  ];
  const step = 2 * radius + 0.01;
  const nx = Math.floor(scene.table.size.x / 2 / step);
  const ny = Math.floor(scene.table.size.y / 2 / step);
  const points: { x: number; y: number }[] = [];
  for (let i = -nx; i <= nx; i++) for (let j = -ny; j <= ny; j++) points.push({ x: i * step, y: j * step });
  points.sort((a, b) => Math.hypot(a.x, a.y) - Math.hypot(b.x, b.y) || a.x - b.x || a.y - b.y);
  const free = points.find(
    (p) =>
      region.contains(p.x, p.y) &&
      busy.every((b) => Math.hypot(p.x - b.x, p.y - b.y) >= b.r + radius + 0.005),
  );
  return { x: roundLength(free?.x ?? 0), y: roundLength(free?.y ?? 0) };
}

/** The scene with a new cylinder obstacle on a free spot. */
export function addObstacle(scene: Scene): Scene {
  const next = plainCopy(scene);
  const obstacle: Obstacle = {
    id: freeId(scene, 'obstacle'),
    shape: { kind: 'cylinder', radius: NEW_RADIUS, height: NEW_HEIGHT },
    pose: { ...freeSpot(scene, NEW_RADIUS), theta: 0 },
  };
  next.obstacles.push(obstacle);
  return next;
}

/** The scene with a new cylinder object (slider) on a free spot, like its first slider's make. */
export function addSlider(scene: Scene): Scene {
  const next = plainCopy(scene);
  const like = scene.sliders[0];
  const slider: Slider = {
    id: freeId(scene, 'object'),
    shape: { kind: 'cylinder', radius: NEW_RADIUS, height: NEW_HEIGHT },
    mass: like?.mass ?? 0.1,
    friction: like?.friction ?? 0.3,
    pose: { ...freeSpot(scene, NEW_RADIUS), theta: 0 },
  };
  next.sliders.push(slider);
  return next;
}

/**
 * The scene without obstacle or slider `index`. Removing the goal's slider is refused: the goal
 * would name no object (choose another goal object first), as is removing the last slider.
 */
export function removeItem(scene: Scene, kind: EditedKind, index: number): Scene {
  if (kind === 'sliders') {
    const slider = scene.sliders[index];
    if (!slider) throw new Error(`there is no object ${index}`);
    if (slider.id === scene.goal.slider)
      throw new Error(`${slider.id} is the goal's object: make another object the goal's before removing it`);
    if (scene.sliders.length === 1) throw new Error('a scene needs at least one object');
  } else if (!scene.obstacles[index]) throw new Error(`there is no obstacle ${index}`);
  const next = plainCopy(scene);
  next[kind].splice(index, 1);
  return next;
}

/** The scene with obstacle or slider `index` of a new shape (its size rounded, kept within the limits). */
export function resizeItem(scene: Scene, kind: EditedKind, index: number, shape: Shape): Scene {
  if (!scene[kind][index])
    throw new Error(`there is no ${kind === 'sliders' ? 'object' : 'obstacle'} ${index}`);
  const size = (m: number) => Math.min(SCENE_LIMITS.bodySize, Math.max(LENGTH_STEP, roundLength(m)));
  const next = plainCopy(scene);
  next[kind][index]!.shape =
    shape.kind === 'cylinder'
      ? { kind: 'cylinder', radius: size(shape.radius), height: size(shape.height) }
      : { kind: 'box', sizeX: size(shape.sizeX), sizeY: size(shape.sizeY), height: size(shape.height) };
  return next;
}
