/**
 * The pushes of an identification run: what they must excite and how each is chosen where the
 * object stands. A centred push moves the object straight and shows how far it slides against
 * the table; an off-centre push turns it, and how much it turns against how far it goes is the
 * ratio of its friction on the table to its friction on the pusher and its mass's spread
 * (quasi-static pushing: Mason's limit surface); pushes at two speeds separate what the object
 * does while pushed from what it does after the pusher stops (sliding on, the only place mass
 * shows). Each push goes the way, of those that leave the object well inside the table and clear
 * of every obstacle and other object, nearest the one that brings it back towards where it began,
 * so a run of pushes stays in a small area.
 */
import { z } from 'zod';
import type { State } from '#contract/state';
import { footprintReach } from '#physics/geometry2d';
import type { TaskGeometry } from '../planning/task-geometry';

export const probePushSchema = z
  .object({
    /** m, sideways from the object's centre, positive to the left of the push (0: centred). */
    offset: z.number().min(-0.05).max(0.05),
    /** m the pusher travels in contact. */
    distance: z.number().positive().max(0.2),
    /** m/s, at most the lab's speed limit (the run narrows it). */
    speed: z.number().positive(),
    /** rad from the way back to the start; the push goes the nearest clear way to it. */
    turn: z.number().min(-Math.PI).max(Math.PI),
  })
  .strict();
export type ProbePush = z.infer<typeof probePushSchema>;

/**
 * Eight pushes: centred and off-centre (both sides, two offsets), slow and fast, in four
 * directions, about 6 cm each.
 */
export const DEFAULT_PROBE_PUSHES: ProbePush[] = [
  { offset: 0, distance: 0.06, speed: 0.05, turn: 0 },
  { offset: 0.02, distance: 0.06, speed: 0.05, turn: Math.PI / 2 },
  { offset: -0.02, distance: 0.06, speed: 0.1, turn: -Math.PI / 2 },
  { offset: 0, distance: 0.06, speed: 0.1, turn: Math.PI },
  { offset: 0.035, distance: 0.06, speed: 0.1, turn: Math.PI / 4 },
  { offset: -0.035, distance: 0.06, speed: 0.05, turn: -Math.PI / 4 },
  { offset: 0.01, distance: 0.06, speed: 0.1, turn: (3 * Math.PI) / 4 },
  { offset: -0.01, distance: 0.06, speed: 0.05, turn: (-3 * Math.PI) / 4 },
];

/** m kept between the object and any obstacle, other object or the table's edge at every point of a push. */
export const PROBE_CLEARANCE = 0.05;

/**
 * The direction (unit vector) of a push of object `i` from state x: of 24 directions, the clear
 * one nearest `turn` from the way back to `home`; null when none is clear.
 */
export function probeDirection(
  geometry: TaskGeometry,
  x: State,
  push: ProbePush,
  home: { x: number; y: number },
): [number, number] | null {
  const i = geometry.goalIndex;
  const s = geometry.layout.sliderPose(x, i);
  const back = Math.hypot(home.x - s.x, home.y - s.y) > 1e-3 ? Math.atan2(home.y - s.y, home.x - s.x) : 0;
  const wanted = back + push.turn;
  const candidates = Array.from({ length: 24 }, (_, k) => (k * Math.PI) / 12).sort(
    (a, b) => angleBetween(a, wanted) - angleBetween(b, wanted),
  );
  for (const a of candidates) {
    const d: [number, number] = [Math.cos(a), Math.sin(a)];
    if (pushIsClear(geometry, x, push, d)) return d;
  }
  return null;
}

function angleBetween(a: number, b: number): number {
  const d = Math.abs(a - b) % (2 * Math.PI);
  return d > Math.PI ? 2 * Math.PI - d : d;
}

/**
 * Whether the object pushed `push.distance` along d (and as far again, for sliding on and the
 * pusher behind it) stays PROBE_CLEARANCE inside the table and from every obstacle and other
 * object, and the pusher's start is on the table too.
 */
function pushIsClear(geometry: TaskGeometry, x: State, push: ProbePush, d: [number, number]): boolean {
  const i = geometry.goalIndex;
  const s = geometry.layout.sliderPose(x, i);
  const reach = footprintReach(geometry.sliders[i]!);
  const inner = geometry.table.shrunk(reach + PROBE_CLEARANCE);
  const discs = [
    ...geometry.obstacleDiscs(PROBE_CLEARANCE),
    ...geometry.otherSliderDiscs(x, PROBE_CLEARANCE),
  ];
  for (let k = 0; k <= 10; k++) {
    const t = (2 * push.distance * k) / 10;
    const p = { x: s.x + d[0] * t, y: s.y + d[1] * t };
    if (!inner.contains(p.x, p.y)) return false;
    if (discs.some((c) => Math.hypot(p.x - c.x, p.y - c.y) < c.r)) return false;
  }
  const start = prePush(geometry, x, push, d);
  return geometry.table.shrunk(PROBE_CLEARANCE).contains(start.x, start.y);
}

/** m between the pusher and the object where a push begins. */
export const PRE_PUSH_GAP = 0.01;

/** Where the pusher stands to begin a push along d: behind the object, `offset` to the side. */
export function prePush(
  geometry: TaskGeometry,
  x: State,
  push: ProbePush,
  d: [number, number],
): { x: number; y: number } {
  const i = geometry.goalIndex;
  const s = geometry.layout.sliderPose(x, i);
  const reach = contactReach(geometry);
  const back = Math.sqrt(Math.max(0, reach * reach - push.offset * push.offset)) + PRE_PUSH_GAP;
  return {
    x: s.x - d[0] * back - d[1] * push.offset,
    y: s.y - d[1] * back + d[0] * push.offset,
  };
}

/** Centre-to-centre distance of the pusher touching the object (their bounding circles). */
export function contactReach(geometry: TaskGeometry): number {
  return footprintReach(geometry.sliders[geometry.goalIndex]!) + (geometry.tool.discRadius ?? 0);
}
