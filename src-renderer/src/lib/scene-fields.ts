/**
 * The scene editor's numeric fields: what each shows (mm, deg, kg, plain) and how a typed
 * value goes back into the SI scene.
 */
import { endEffectorOf, moveRobotStart, robotStart } from '#contract/end-effector/registry';
import type { Scene, Shape } from '#contract/scene';
import { degFromRad, mFromMm, mmFromM, radFromDeg, roundAngle, roundLength } from './units';

export type Unit = 'mm' | 'deg' | 'kg' | '';

export interface SceneField {
  /** Stable key, also the scene path the core reports problems on (sliders[0].pose.x). */
  path: string;
  group: string;
  label: string;
  unit: Unit;
  /** Value in SI. */
  get(scene: Scene): number;
  /** Writes an SI value into a (plain, mutable) scene copy. */
  set(scene: Scene, si: number): void;
}

/** SI value -> the number the operator sees, and back. */
export function toDisplay(unit: Unit, si: number): number {
  return unit === 'mm' ? mmFromM(si) : unit === 'deg' ? degFromRad(si) : si;
}

/** A typed value back in SI, at the editor's resolution for lengths and angles (units.ts). */
export function fromDisplay(unit: Unit, shown: number): number {
  return unit === 'mm' ? roundLength(mFromMm(shown)) : unit === 'deg' ? roundAngle(radFromDeg(shown)) : shown;
}

/** A shape's size fields by name (radius for cylinders, sizeX/sizeY for boxes). */
function dimensionsOf(shape: Shape): Partial<Record<'radius' | 'sizeX' | 'sizeY', number>> {
  return shape as unknown as Partial<Record<'radius' | 'sizeX' | 'sizeY', number>>;
}

function shapeFields(group: string, base: string, shapeOf: (s: Scene) => Shape): SceneField[] {
  const dim = (key: 'radius' | 'sizeX' | 'sizeY', label: string): SceneField => ({
    path: `${base}.shape.${key}`,
    group,
    label,
    unit: 'mm',
    get: (s) => dimensionsOf(shapeOf(s))[key] ?? 0,
    set: (s, v) => void (dimensionsOf(shapeOf(s))[key] = v),
  });
  return [dim('radius', 'radius'), dim('sizeX', 'size x'), dim('sizeY', 'size y')];
}

export function sceneFields(scene: Scene): SceneField[] {
  const robot = endEffectorOf(scene).title;
  const fields: SceneField[] = [
    {
      path: 'table.size.x',
      group: 'Table',
      label: 'size x',
      unit: 'mm',
      get: (s) => s.table.size.x,
      set: (s, v) => void (s.table.size.x = v),
    },
    {
      path: 'table.size.y',
      group: 'Table',
      label: 'size y',
      unit: 'mm',
      get: (s) => s.table.size.y,
      set: (s, v) => void (s.table.size.y = v),
    },
    {
      path: 'pusher.position.x',
      group: robot,
      label: 'x',
      unit: 'mm',
      get: (s) => robotStart(s).x,
      set: (s, v) => moveRobotStart(s, { ...robotStart(s), x: v }),
    },
    {
      path: 'pusher.position.y',
      group: robot,
      label: 'y',
      unit: 'mm',
      get: (s) => robotStart(s).y,
      set: (s, v) => moveRobotStart(s, { ...robotStart(s), y: v }),
    },
    {
      path: 'pusher.radius',
      group: robot,
      label: 'radius',
      unit: 'mm',
      get: (s) => s.pusher?.radius ?? Number.NaN,
      set: (s, v) => void (s.pusher && (s.pusher.radius = v)),
    },
    {
      path: 'goal.center.x',
      group: 'Goal',
      label: 'x',
      unit: 'mm',
      get: (s) => s.goal.center.x,
      set: (s, v) => void (s.goal.center.x = v),
    },
    {
      path: 'goal.center.y',
      group: 'Goal',
      label: 'y',
      unit: 'mm',
      get: (s) => s.goal.center.y,
      set: (s, v) => void (s.goal.center.y = v),
    },
    {
      path: 'goal.radius',
      group: 'Goal',
      label: 'radius',
      unit: 'mm',
      get: (s) => s.goal.radius,
      set: (s, v) => void (s.goal.radius = v),
    },
  ];
  const posed = (kind: 'sliders' | 'obstacles', i: number, id: string) => {
    const base = `${kind}[${i}]`;
    const group = `${kind === 'sliders' ? 'Slider' : 'Obstacle'} ${id}`;
    const item = (s: Scene) => s[kind][i]!;
    const list: SceneField[] = [
      {
        path: `${base}.pose.x`,
        group,
        label: 'x',
        unit: 'mm',
        get: (s) => item(s).pose.x,
        set: (s, v) => void (item(s).pose.x = v),
      },
      {
        path: `${base}.pose.y`,
        group,
        label: 'y',
        unit: 'mm',
        get: (s) => item(s).pose.y,
        set: (s, v) => void (item(s).pose.y = v),
      },
      {
        path: `${base}.pose.theta`,
        group,
        label: 'θ',
        unit: 'deg',
        get: (s) => item(s).pose.theta,
        set: (s, v) => void (item(s).pose.theta = v),
      },
    ];
    const shape = scene[kind][i]!.shape;
    list.push(
      ...shapeFields(group, base, (s) => item(s).shape).filter(
        (f) => (shape.kind === 'cylinder') === f.path.endsWith('radius'),
      ),
    );
    return list;
  };
  scene.sliders.forEach((sl, i) => {
    fields.push(...posed('sliders', i, sl.id));
    fields.push({
      path: `sliders[${i}].mass`,
      group: `Slider ${sl.id}`,
      label: 'mass',
      unit: 'kg',
      get: (s) => s.sliders[i]!.mass,
      set: (s, v) => void (s.sliders[i]!.mass = v),
    });
  });
  scene.obstacles.forEach((ob, i) => fields.push(...posed('obstacles', i, ob.id)));
  return fields;
}
