/**
 * The table view (lib/draw-table.ts) drawn on a context that records every call: for a known
 * scene, state, plan and canvas size, what is drawn where. The numbers are worked out by hand:
 * the isrr-obstacle table (1 m x 0.8 m) on a 1048 x 848 px canvas with its 24 px margin is
 * 1000 px per metre, centred at (524, 424) px, y up on the table and down on the canvas, so a
 * table point (x, y) in metres is at (524 + 1000 x, 424 - 1000 y) px.
 */
import { describe, expect, it } from 'vitest';
import { type PlannerStep } from '#contract/planner-events';
import type { Scene } from '#contract/scene';
import {
  describeView,
  drawTable,
  PLAN_STYLE,
  WHAT_IF_STYLE,
  type LiveOverlay,
} from '../../src-renderer/src/lib/draw-table';
import { LABEL_HEIGHT, overlap, type Box } from '../../src-renderer/src/lib/label-layout';
import { as2d, RecordingContext } from '../helpers/recording-canvas';
import { referenceScene } from '../helpers/scenes';

/** isrr-obstacle with a second, box-shaped obstacle turned by 0.3 rad. */
const scene: Scene = (() => {
  const s = referenceScene('isrr-obstacle');
  return {
    ...s,
    obstacles: [
      ...s.obstacles,
      {
        id: 'wall',
        shape: { kind: 'box', sizeX: 0.1, sizeY: 0.02, height: 0.05 },
        pose: { x: 0.1, y: 0.25, theta: 0.3 },
      },
    ],
  };
})();

const W = 1048;
const H = 848;
/** Table metres to canvas px on the 1048 x 848 canvas. */
const px = (x: number, y: number): [number, number] => [524 + 1000 * x, 424 - 1000 * y];

const COLOURS = {
  table: '#d7ccc8',
  goalFill: 'rgba(46, 125, 50, 0.15)',
  goalRing: '#2e7d32',
  obstacle: '#424242',
  slider: '#1565c0',
  pusher: '#ef6c00',
  executed: '#000',
  rollout: 'rgba(0,0,0,0.15)',
};

const none: LiveOverlay = { step: null, state: null, executedPath: [], showRollouts: false };

function draw(overlay: Partial<LiveOverlay> = {}, width = W, height = H, s: Scene = scene) {
  const ctx = new RecordingContext();
  const t = drawTable(as2d(ctx), width, height, s, { ...none, ...overlay });
  return { ctx, t };
}

/** Close to the pixel, element by element. */
function expectNear(actual: readonly number[] | undefined, expected: readonly number[], digits = 6): void {
  expect(actual).toBeDefined();
  expect(actual).toHaveLength(expected.length);
  expected.forEach((v, i) => expect(actual![i]).toBeCloseTo(v, digits));
}

/** Each point (or disc) close to the pixel, and no more, no fewer of them. */
function expectAll(actual: readonly (readonly number[])[], expected: readonly (readonly number[])[]): void {
  expect(actual).toHaveLength(expected.length);
  expected.forEach((e, i) => expectNear(actual[i], e));
}

/** State vector of one slider (contract/state.ts): pusher x, y; slider x, y, theta; velocities. */
const state = (pusher: [number, number], slider: [number, number, number]): number[] => [
  ...pusher,
  ...slider,
  0,
  0,
  0,
  0,
  0,
];

function step(patch: Partial<PlannerStep> = {}): PlannerStep {
  const start = state([-0.1, 0.05], [-0.03, 0.06, 0]);
  return {
    step: 3,
    time: 12,
    sliderIds: ['object'],
    start,
    plan: [
      [0.02, 0],
      [0.02, 0.01],
    ],
    controlDuration: 1,
    predictions: [
      {
        iteration: 0,
        states: [state([-0.08, 0.05], [-0.01, 0.06, 0]), state([-0.06, 0.06], [0.01, 0.07, 0])],
      },
      {
        iteration: 1,
        states: [state([-0.08, 0.05], [-0.012, 0.061, 0]), state([-0.06, 0.06], [0.006, 0.072, 0])],
      },
    ],
    convergence: [{ iteration: 1, translation: 0.004, rotation: 0.02 }],
    costs: [3, 2],
    timings: { planning: 0.5, prediction: 0.4, workers: 2, theoreticalSpeedup: 2 },
    ...patch,
  };
}

describe('drawTable: the scene at its place and scale', () => {
  it('fits the table into the canvas with a 24 px margin, 1000 px per metre here', () => {
    const { ctx, t } = draw();
    expect(t).toEqual({ scale: 1000, cx: 524, cy: 424 });
    const table = ctx.calls('fillRect').find((o) => o.fillStyle === COLOURS.table);
    expectNear(table?.args as number[], [24, 24, 1000, 800]);
    expect(ctx.calls('strokeRect')[0]!.args).toEqual([24, 24, 1000, 800]);
  });

  it('draws the goal as a dashed ring of its radius at its centre', () => {
    const { ctx } = draw();
    expectAll(ctx.discs(COLOURS.goalFill), [[744, 424, 50]]);
    const ring = ctx.painted.find((p) => p.op === 'stroke' && p.style === COLOURS.goalRing);
    expect(ring?.dash).toEqual([6, 4]);
    expectNear(ring?.path[0]?.args, [744, 424, 50, 0, 2 * Math.PI]);
  });

  it('draws every obstacle, cylinders as discs and boxes turned by their heading', () => {
    const { ctx } = draw();
    expectAll(ctx.discs(COLOURS.obstacle), [[524, 424, 40]]);
    // The box: moved to its centre, turned clockwise on the canvas (y points down), 100 x 20 px.
    const translate = ctx.calls('translate');
    expect(translate).toHaveLength(1);
    expectNear(translate[0]!.args as number[], px(0.1, 0.25));
    expect(ctx.calls('rotate')[0]!.args).toEqual([-0.3]);
    const box = ctx.painted.find(
      (p) => p.op === 'fill' && p.style === COLOURS.obstacle && p.path[0]?.kind === 'rect',
    );
    expectNear(box?.path[0]?.args, [-50, -10, 100, 20]);
  });

  it("puts the slider and the pusher at the scene's poses when no state is measured", () => {
    const { ctx } = draw();
    expectAll(ctx.discs(COLOURS.slider), [[304, 424, 51.15]]);
    expectAll(ctx.discs(COLOURS.pusher), [[224, 424, 14.5]]);
  });

  it('puts them where the measured state says, with the heading tick along the slider heading', () => {
    const { ctx } = draw({ state: state([-0.1, 0.05], [-0.03, 0.06, Math.PI / 2]) });
    expectAll(ctx.discs(COLOURS.slider), [[494, 364, 51.15]]);
    expectAll(ctx.discs(COLOURS.pusher), [[424, 374, 14.5]]);
    // 0.8 of the radius from the centre, straight up the canvas for a heading of +90 degrees.
    const [tick] = ctx.polylines('#fff');
    expectNear(tick!.points[0], [494, 364]);
    expectNear(tick!.points[1], [494, 364 - 0.8 * 51.15]);
  });

  it('scales with the canvas: half the size, half the pixels per metre', () => {
    const { ctx, t } = draw({}, 548, 448);
    expect(t).toEqual({ scale: 500, cx: 274, cy: 224 });
    expectAll(ctx.discs(COLOURS.slider), [[274 - 110, 224, 25.575]]);
    expectAll(ctx.discs(COLOURS.goalFill), [[274 + 110, 224, 25]]);
  });

  it('keeps a pusher too small to see at 3 px', () => {
    const { ctx } = draw({}, 148, 128);
    expect(ctx.discs(COLOURS.pusher)[0]![2]).toBe(3);
  });

  it('draws the executed pusher path as a black polyline', () => {
    const { ctx } = draw({
      executedPath: [
        [-0.2, 0],
        [-0.15, 0.01],
        [-0.1, 0.05],
      ],
    });
    const [path] = ctx.polylines(COLOURS.executed);
    expectAll(path!.points, [
      [324, 424],
      [374, 414],
      [424, 374],
    ]);
    expect(path).toMatchObject({ lineWidth: 2, dash: [] });
  });
});

describe('drawTable: labels', () => {
  /** The box a label's text takes (measured at 7 px a character, as the recorder does). */
  const boxOf = (l: { text: string; x: number; y: number }): Box => {
    const w = l.text.length * 7 + 6;
    return { x: l.x - w / 2, y: l.y - LABEL_HEIGHT / 2, w, h: LABEL_HEIGHT };
  };
  const circle = ([x, y, r]: [number, number, number]): Box => ({ x: x - r, y: y - r, w: 2 * r, h: 2 * r });

  it('names the goal, the pusher, each slider and each obstacle once, in its colour', () => {
    const { ctx } = draw();
    const labels = ctx.texts();
    for (const [text, colour] of [
      ['GOAL', '#1b5e20'],
      ['Cylindrical pusher', '#3e2723'],
      ['object', '#0d47a1'],
      ['obstacle', '#fff'],
      ['wall', '#fff'],
    ]) {
      const found = labels.filter((l) => l.text === text);
      expect(found, text).toHaveLength(1);
      expect(found[0]!.colour, text).toBe(colour);
    }
    // Each on a halo of the same text first (the scale bar's text has its own box instead).
    expect(ctx.calls('strokeText').map((o) => o.args[0])).toEqual(
      labels.filter((l) => !/^\d+ mm$/.test(l.text)).map((l) => l.text),
    );
  });

  it('puts the goal label above its ring and the obstacle ids on the obstacles, where nothing is in the way', () => {
    const labels = draw().ctx.texts();
    const goal = labels.find((l) => l.text === 'GOAL')!;
    expectNear([goal.x, goal.y], [744, 424 - 50 - 10]);
    const obstacle = labels.find((l) => l.text === 'obstacle')!;
    expectNear([obstacle.x, obstacle.y], [524, 424]);
    const wall = labels.find((l) => l.text === 'wall')!;
    expectNear([wall.x, wall.y], px(0.1, 0.25));
  });

  it('keeps labels off each other, off the pusher and the slider, and inside the canvas, even when crowded', () => {
    // The pusher against the slider, the plan's labels on top of both: every label has to move.
    const crowded = step({
      start: state([-0.27, 0], [-0.22, 0, 0]),
      predictions: [0, 1, 2, 3].map((iteration) => ({
        iteration,
        states: [state([-0.25, 0], [-0.2 + 0.002 * iteration, 0, 0])],
      })),
    });
    const { ctx } = draw({ state: state([-0.27, 0], [-0.22, 0, 0]), step: crowded });
    const labels = ctx.texts().filter((l) => !/^\d+ mm$/.test(l.text));
    expect(labels.map((l) => l.text)).toEqual(
      expect.arrayContaining(['Cylindrical pusher', 'object', 'k=0', 'k=1', 'k=2', 'k=3']),
    );
    const boxes = labels.map(boxOf);
    const marks = [...ctx.discs(COLOURS.pusher), ...ctx.discs(COLOURS.slider)].map(circle);
    boxes.forEach((b, i) => {
      for (const other of boxes.slice(i + 1)) expect(overlap(b, other), labels[i]!.text).toBe(0);
      for (const m of marks) expect(overlap(b, m), labels[i]!.text).toBe(0);
      expect(b.x).toBeGreaterThanOrEqual(0);
      expect(b.y).toBeGreaterThanOrEqual(0);
      expect(b.x + b.w).toBeLessThanOrEqual(W);
      expect(b.y + b.h).toBeLessThanOrEqual(H);
    });
  });
});

describe('drawTable: the plan and its predictions', () => {
  it('draws the chosen plan as the pusher path its controls drive, thick, with square markers', () => {
    const { ctx } = draw({ step: step() });
    const [plan] = ctx.polylines(PLAN_STYLE.colour);
    // From the start state's pusher (-0.1, 0.05), 20 mm/s right for 1 s, then 20 mm/s right and 10 up.
    expect(plan!.points).toHaveLength(3);
    expectAll(plan!.points, [
      [424, 374],
      [444, 374],
      [464, 364],
    ]);
    expect(plan!.lineWidth).toBe(4);
    expect(plan!.dash).toEqual([]);
    const squares = ctx.calls('fillRect').filter((o) => o.fillStyle === PLAN_STYLE.colour);
    expect(squares).toHaveLength(2);
    expectNear(squares[0]!.args as number[], [441, 371, 6, 6]);
    expectNear(squares[1]!.args as number[], [461, 361, 6, 6]);
  });

  it('draws one slider path per Parareal iteration from the start, told apart by colour, dash and label', () => {
    const { ctx } = draw({ step: step() });
    // (A label moved far from its point gets a 1 px leader line in its colour: not a path.)
    const coarse = ctx.polylines('#9e9e9e').filter((p) => p.lineWidth === 2);
    const first = ctx.polylines('#42a5f5').filter((p) => p.lineWidth === 2);
    expect(coarse).toHaveLength(1);
    expect(first).toHaveLength(1);
    expect(coarse[0]!.dash).toEqual([2, 4]);
    expect(first[0]!.dash).toEqual([8, 4]);
    expectAll(coarse[0]!.points, [
      [494, 364],
      [514, 364],
      [534, 354],
    ]);
    expectAll(first[0]!.points, [
      [494, 364],
      [512, 363],
      [530, 352],
    ]);
    const labels = ctx.texts();
    expect(labels.find((l) => l.text === 'k=0')?.colour).toBe('#9e9e9e');
    expect(labels.find((l) => l.text === 'k=1')?.colour).toBe('#42a5f5');
  });

  it('gives iterations past the palette the last colour, solid', () => {
    const { ctx } = draw({
      step: step({ predictions: [{ iteration: 9, states: [state([0, 0], [0.05, 0, 0])] }] }),
    });
    const [late] = ctx.polylines('#ef5350');
    expect(late!.dash).toEqual([]);
    expect(ctx.texts().find((l) => l.text === 'k=9')?.colour).toBe('#ef5350');
  });

  it('draws the rollout traces only when asked to', () => {
    const rollouts = [
      [state([-0.1, 0.05], [-0.03, 0.06, 0]), state([-0.09, 0.04], [-0.03, 0.06, 0])],
      [state([-0.1, 0.05], [-0.03, 0.06, 0]), state([-0.11, 0.06], [-0.03, 0.06, 0])],
    ];
    expect(draw({ step: step({ rollouts }) }).ctx.polylines(COLOURS.rollout)).toHaveLength(0);
    const traces = draw({ step: step({ rollouts }), showRollouts: true }).ctx.polylines(COLOURS.rollout);
    expect(traces).toHaveLength(2);
    expectAll(traces[0]!.points, [
      [424, 374],
      [434, 384],
    ]);
    expectAll(traces[1]!.points, [
      [424, 374],
      [414, 364],
    ]);
  });

  it('draws a what-if re-plan beside the plan: purple, dashed, round markers, labelled', () => {
    const whatIf = step({
      plan: [[0, 0.02]],
      predictions: [{ iteration: 0, states: [state([-0.1, 0.07], [-0.03, 0.08, 0])] }],
    });
    const { ctx } = draw({ step: step(), whatIf });
    const purple = ctx.polylines(WHAT_IF_STYLE.colour);
    const plan = purple.find((p) => p.lineWidth === 4);
    expect(plan?.dash).toEqual(WHAT_IF_STYLE.dash);
    expect(plan?.points).toHaveLength(2);
    expectNear(plan!.points[1], [424, 354]);
    const slider = purple.find((p) => p.lineWidth === 2);
    expect(slider?.dash).toEqual([4, 4]);
    expect(slider?.points).toHaveLength(2);
    expectNear(slider!.points[1], [494, 344]);
    expectAll(ctx.discs(WHAT_IF_STYLE.colour), [[424, 354, 4]]);
    expect(ctx.texts().filter((l) => l.text === 'what-if')).toHaveLength(1);
    // The logged plan is still there, in its own style.
    expect(ctx.polylines(PLAN_STYLE.colour)).toHaveLength(1);
  });

  it('says in words what it draws', () => {
    expect(describeView(null, null)).toBe('No scene loaded');
    expect(describeView(scene, null)).toBe(
      'Table 1000 × 800 mm; 1 slider(s); 2 obstacle(s); goal for object',
    );
    expect(describeView(scene, step(), step({ step: 3, plan: [[0, 0.02]] }))).toBe(
      'Table 1000 × 800 mm; 1 slider(s); 2 obstacle(s); goal for object; plan step 3 with 2 action(s); ' +
        'predictions for Parareal iteration(s) 0, 1; what-if plan for step 3 with 1 action(s)',
    );
  });
});
