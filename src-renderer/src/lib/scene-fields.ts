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

/**
 * The fields of number properties of one object in the scene (`holder`), one per [key, label,
 * unit] entry (unit mm unless named), at path `${base}.${key}`: each reads and writes its property.
 * The keys come from the entries (NoInfer): the holder only has to have them.
 */
function propertyFields<K extends string>(
  group: string,
  base: string,
  holder: (s: Scene) => NoInfer<Record<K, number>>,
  entries: readonly (readonly [key: K, label: string, unit?: Unit])[],
): SceneField[] {
  return entries.map(([key, label, unit = 'mm']) => ({
    path: `${base}.${key}`,
    group,
    label,
    unit,
    get: (s) => holder(s)[key],
    set: (s, v) => {
      const target: Record<K, number> = holder(s);
      target[key] = v;
    },
  }));
}

/** A shape's size fields by name (radius for cylinders, sizeX/sizeY for boxes). */
function dimensionsOf(shape: Shape): Record<'radius' | 'sizeX' | 'sizeY', number> {
  return shape as unknown as Record<'radius' | 'sizeX' | 'sizeY', number>;
}

export function sceneFields(scene: Scene): SceneField[] {
  const robot = endEffectorOf(scene).title;
  const fields: SceneField[] = [
    ...propertyFields('Table', 'table.size', (s) => s.table.size, [
      ['x', 'size x'],
      ['y', 'size y'],
    ]),
    ...(['x', 'y'] as const).map((axis): SceneField => ({
      path: `pusher.position.${axis}`,
      group: robot,
      label: axis,
      unit: 'mm',
      get: (s) => robotStart(s)[axis],
      set: (s, v) => moveRobotStart(s, { ...robotStart(s), [axis]: v }),
    })),
    {
      path: 'pusher.radius',
      group: robot,
      label: 'radius',
      unit: 'mm',
      get: (s) => s.pusher?.radius ?? Number.NaN,
      set: (s, v) => void (s.pusher && (s.pusher.radius = v)),
    },
    ...propertyFields('Goal', 'goal.center', (s) => s.goal.center, [
      ['x', 'x'],
      ['y', 'y'],
    ]),
    ...propertyFields('Goal', 'goal', (s) => s.goal, [['radius', 'radius']]),
  ];
  const posed = (kind: 'sliders' | 'obstacles', i: number, id: string): SceneField[] => {
    const base = `${kind}[${i}]`;
    const group = `${kind === 'sliders' ? 'Slider' : 'Obstacle'} ${id}`;
    const item = (s: Scene) => s[kind][i]!;
    return [
      ...propertyFields(group, `${base}.pose`, (s) => item(s).pose, [
        ['x', 'x'],
        ['y', 'y'],
        ['theta', 'θ', 'deg'],
      ]),
      ...propertyFields(
        group,
        `${base}.shape`,
        (s) => dimensionsOf(item(s).shape),
        scene[kind][i]!.shape.kind === 'cylinder'
          ? [['radius', 'radius']]
          : [
              ['sizeX', 'size x'],
              ['sizeY', 'size y'],
            ],
      ),
    ];
  };
  scene.sliders.forEach((sl, i) => {
    fields.push(...posed('sliders', i, sl.id));
    fields.push(
      ...propertyFields(`Slider ${sl.id}`, `sliders[${i}]`, (s) => s.sliders[i]!, [['mass', 'mass', 'kg']]),
    );
  });
  scene.obstacles.forEach((ob, i) => fields.push(...posed('obstacles', i, ob.id)));
  return fields;
}
