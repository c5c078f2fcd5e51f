/**
 * One object drawn from a task's object ranges (WAFR 2018 fn. 1), for the WAFR pushing tasks'
 * goal object (initial-states.ts) and every object of a clutter scene (clutter.ts).
 */
import type { Shape } from '#contract/scene';
import { Rng } from '../common/rng';
import type { ObjectSampling } from '../planning/task-file';

/** WAFR 2018 fn. 1: the shape first (uniformly among `shapes`), then its dimensions, mass and friction. */
export function sampleObject(
  o: ObjectSampling,
  seed: number,
): { shape: Shape; mass: number; friction: number } {
  const rng = new Rng(seed);
  const uniform = ([lo, hi]: readonly [number, number]): number => rng.between(lo, hi);
  const kind = o.shapes[Math.min(o.shapes.length - 1, Math.floor(rng.uniform() * o.shapes.length))]!;
  const shape: Shape =
    kind === 'box'
      ? {
          kind: 'box',
          sizeX: uniform(o.boxSize),
          sizeY: uniform(o.boxSize),
          height: uniform(o.boxHeight),
        }
      : { kind: 'cylinder', radius: uniform(o.cylinderRadius), height: uniform(o.cylinderHeight) };
  return { shape, mass: uniform(o.mass), friction: uniform(o.friction) };
}
