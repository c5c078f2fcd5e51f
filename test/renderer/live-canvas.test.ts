// @vitest-environment jsdom
/**
 * LiveCanvas, the console's table view, mounted in jsdom with a recording 2D context behind its
 * canvas: the canvas follows its box and the display's pixel ratio, draws the measured state at
 * the right pixels, offers rollout traces when a step has them, shows a what-if legend in words,
 * and in the Scene view turns a drag into a moved scene. The isrr-obstacle table (1 m x 0.8 m) in
 * the default 640 x 480 box is 540 px per metre centred at (320, 240) px.
 */
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import { type PlannerStep } from '#contract/planner-events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Scene } from '#contract/scene';
import LiveCanvas from '../../src-renderer/src/components/LiveCanvas.svelte';
import { PLAN_STYLE, WHAT_IF_STYLE } from '../../src-renderer/src/lib/draw-table';
import { RecordingContext } from '../helpers/recording-canvas';
import { referenceScene } from '../helpers/scenes';

const scene = referenceScene('isrr-obstacle');
const SLIDER = '#1565c0';
const PUSHER = '#ef6c00';

/** The context behind each canvas, and the resize observers the component made. */
let contexts: Map<HTMLCanvasElement, RecordingContext>;
let observers: { callback: ResizeObserverCallback; target: Element | null }[];

beforeEach(() => {
  contexts = new Map();
  observers = [];
  vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockImplementation(function (this: HTMLCanvasElement) {
    let c = contexts.get(this);
    if (!c) contexts.set(this, (c = new RecordingContext(this, { clearStartsFrame: true })));
    return c as unknown as RenderingContext;
  } as unknown as HTMLCanvasElement['getContext']);
  HTMLCanvasElement.prototype.setPointerCapture = () => {};
  vi.stubGlobal(
    'ResizeObserver',
    class {
      private entry: { callback: ResizeObserverCallback; target: Element | null };
      constructor(callback: ResizeObserverCallback) {
        this.entry = { callback, target: null };
        observers.push(this.entry);
      }
      observe(target: Element) {
        this.entry.target = target;
      }
      disconnect() {
        this.entry.target = null;
      }
    },
  );
  // One frame: soon, but after the current task, as a browser's animation frame.
  vi.stubGlobal('requestAnimationFrame', (cb: FrameRequestCallback) => setTimeout(() => cb(0), 0));
  vi.stubGlobal('cancelAnimationFrame', (id: number) => clearTimeout(id));
  vi.stubGlobal('devicePixelRatio', 2);
});

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

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
  return {
    step: 3,
    time: 12,
    sliderIds: ['object'],
    start: state([-0.1, 0.05], [-0.03, 0.06, 0]),
    plan: [[0.02, 0]],
    controlDuration: 1,
    predictions: [{ iteration: 0, states: [state([-0.08, 0.05], [-0.01, 0.06, 0])] }],
    convergence: [],
    costs: [3, 2.5],
    timings: { planning: 0.5, prediction: 0.4, workers: 2, theoreticalSpeedup: null },
    ...patch,
  };
}

interface Props {
  scene: Scene | null;
  step: PlannerStep | null;
  liveState: number[] | null;
  executedPath: [number, number][];
  whatIf?: { index: number; original: PlannerStep; replanned: PlannerStep; label: string } | null;
  editable?: boolean;
  onMoved?: (scene: Scene) => void;
}

const props = (patch: Partial<Props> = {}): Props => ({
  scene,
  step: null,
  liveState: null,
  executedPath: [],
  ...patch,
});

const canvas = () => screen.getByTestId('live-canvas') as HTMLCanvasElement;
/** The recording of the canvas's last frame, once one is drawn that satisfies `check`. */
async function frame(check: (c: RecordingContext) => void): Promise<RecordingContext> {
  let ctx: RecordingContext | undefined;
  await waitFor(() => {
    ctx = contexts.get(canvas());
    expect(ctx).toBeDefined();
    check(ctx!);
  });
  return ctx!;
}

function expectDisc(actual: [number, number, number] | undefined, expected: [number, number, number]): void {
  expect(actual).toBeDefined();
  expected.forEach((v, i) => expect(actual![i]).toBeCloseTo(v, 6));
}

describe('LiveCanvas', () => {
  it('says so when there is no scene, and draws nothing', () => {
    render(LiveCanvas, props({ scene: null }));
    expect(screen.getByText('No scene loaded. Open the Scene view to load one.')).toBeTruthy();
    expect(screen.queryByTestId('live-canvas')).toBeNull();
  });

  it('draws the measured state at its pixels, sharp on a 2x display, and names the scale bar', async () => {
    render(LiveCanvas, props({ liveState: state([-0.1, 0.05], [-0.03, 0.06, 0]) }));
    const ctx = await frame((c) => expect(c.discs(SLIDER)).toHaveLength(1));
    // 640 x 480 CSS px, twice as many device pixels, drawn in CSS px through the transform.
    expect([canvas().width, canvas().height]).toEqual([1280, 960]);
    expect(canvas().style.width).toBe('640px');
    expect(ctx.transform).toEqual([2, 0, 0, 2, 0, 0]);
    expectDisc(ctx.discs(SLIDER)[0], [320 - 0.03 * 540, 240 - 0.06 * 540, 0.05115 * 540]);
    expectDisc(ctx.discs(PUSHER)[0], [320 - 0.1 * 540, 240 - 0.05 * 540, 0.0145 * 540]);
    // 200 mm is the round length that fits in 150 px at 540 px per metre (108 px).
    expect(canvas().dataset.scaleMm).toBe('200');
    expect(ctx.texts().map((t) => t.text)).toContain('200 mm');
    expect(canvas().getAttribute('aria-label')).toBe(
      'Table 1000 × 800 mm; 1 slider(s); 1 obstacle(s); goal for object',
    );
  });

  it('redraws at the new scale when its box is resized', async () => {
    render(LiveCanvas, props({ liveState: state([-0.1, 0.05], [-0.03, 0.06, 0]) }));
    await frame((c) => expect(c.discs(SLIDER)).toHaveLength(1));
    const observer = observers.find((o) => o.target !== null)!;
    expect(observer.target).toBe(canvas().parentElement);
    observer.callback(
      [{ contentRect: { width: 1048, height: 848 } } as ResizeObserverEntry],
      {} as ResizeObserver,
    );
    const ctx = await frame((c) => expectDisc(c.discs(SLIDER).at(-1), [494, 364, 51.15]));
    expect([canvas().width, canvas().height]).toEqual([2096, 1696]);
    expect(canvas().dataset.scaleMm).toBe('100');
    expect(ctx.discs(SLIDER)).toHaveLength(1);
  });

  it('offers rollout traces only for a step that has them, and draws them when ticked', async () => {
    const { rerender } = render(LiveCanvas, props({ step: step() }));
    await frame((c) => expect(c.polylines(PLAN_STYLE.colour)).toHaveLength(1));
    expect(screen.queryByLabelText('rollout traces')).toBeNull();
    const rollouts = [[state([-0.1, 0.05], [-0.03, 0.06, 0]), state([-0.09, 0.04], [-0.03, 0.06, 0])]];
    await rerender(props({ step: step({ rollouts }) }));
    const box = screen.getByLabelText('rollout traces') as HTMLInputElement;
    expect(box.checked).toBe(false);
    await frame((c) => expect(c.polylines('rgba(0,0,0,0.15)')).toHaveLength(0));
    await fireEvent.click(box);
    const ctx = await frame((c) => expect(c.polylines('rgba(0,0,0,0.15)')).toHaveLength(1));
    const [trace] = ctx.polylines('rgba(0,0,0,0.15)');
    expectDisc([...trace!.points[1]!, 0], [320 - 0.09 * 540, 240 - 0.04 * 540, 0]);
  });

  it('draws a what-if beside the logged plan and names both, with their costs, in a legend', async () => {
    const original = step();
    const replanned = step({ plan: [[0, 0.02]], costs: [2.0, 1.25] });
    render(
      LiveCanvas,
      props({
        step: step({ step: 7 }),
        whatIf: { index: 3, original, replanned, label: 'fine model, 20 rollouts' },
      }),
    );
    const ctx = await frame((c) => expect(c.polylines(WHAT_IF_STYLE.colour).length).toBeGreaterThan(0));
    const legend = screen.getByTestId('what-if-legend');
    expect(legend.textContent).toContain('Logged plan (solid orange, squares)');
    expect(legend.textContent).toContain('step 3, cost 2.500');
    expect(legend.textContent).toContain('What-if plan (dashed purple, dots)');
    expect(legend.textContent).toContain('fine model, 20 rollouts, cost 1.250');
    // The plan drawn is the logged step the what-if re-planned (step 3), not the live one (7).
    expect(canvas().getAttribute('aria-label')).toContain('plan step 3 with 1 action(s)');
    expect(canvas().getAttribute('aria-label')).toContain('what-if plan for step 3 with 1 action(s)');
    const [plan] = ctx.polylines(PLAN_STYLE.colour);
    expect(plan!.points[1]![0]).toBeCloseTo(320 - 0.08 * 540, 6);
    const whatIfPlan = ctx.polylines(WHAT_IF_STYLE.colour).find((p) => p.lineWidth === 4);
    expect(whatIfPlan!.points[1]![1]).toBeCloseTo(240 - 0.07 * 540, 6);
  });

  it('in the Scene view, moves the slider that is dragged and reports the moved scene once', async () => {
    const onMoved = vi.fn();
    render(LiveCanvas, props({ editable: true, onMoved }));
    await frame((c) => expect(c.discs(SLIDER)).toHaveLength(1));
    // The slider sits at (-0.22, 0) m: (201.2, 240) px. Drag it to (-0.1, 0.1) m: (266, 186) px.
    await fireEvent.pointerDown(canvas(), { clientX: 201.2, clientY: 240, pointerId: 1 });
    await fireEvent.pointerMove(canvas(), { clientX: 266, clientY: 186, pointerId: 1 });
    // While dragging, the view shows the slider where the pointer is.
    await frame((c) => expectDisc(c.discs(SLIDER).at(-1), [266, 186, 0.05115 * 540]));
    expect(onMoved).not.toHaveBeenCalled();
    await fireEvent.pointerUp(canvas(), { clientX: 266, clientY: 186, pointerId: 1 });
    expect(onMoved).toHaveBeenCalledTimes(1);
    const moved = onMoved.mock.calls[0]![0] as Scene;
    expect(moved.sliders[0]!.pose.x).toBeCloseTo(-0.1, 9);
    expect(moved.sliders[0]!.pose.y).toBeCloseTo(0.1, 9);
    expect(moved.sliders[0]!.pose.theta).toBe(0);
    // Nothing else moved.
    expect(moved.pusher).toEqual(scene.pusher);
    expect(moved.goal).toEqual(scene.goal);
    expect(moved.obstacles).toEqual(scene.obstacles);
  });

  it('ignores drags outside the Scene view and on empty table', async () => {
    const onMoved = vi.fn();
    const { rerender } = render(LiveCanvas, props({ onMoved }));
    await frame((c) => expect(c.discs(SLIDER)).toHaveLength(1));
    await fireEvent.pointerDown(canvas(), { clientX: 201.2, clientY: 240, pointerId: 1 });
    await fireEvent.pointerUp(canvas(), { clientX: 266, clientY: 186, pointerId: 1 });
    await rerender(props({ onMoved, editable: true }));
    // (0.3, -0.3) m: nothing there.
    await fireEvent.pointerDown(canvas(), { clientX: 482, clientY: 402, pointerId: 2 });
    await fireEvent.pointerUp(canvas(), { clientX: 300, clientY: 300, pointerId: 2 });
    expect(onMoved).not.toHaveBeenCalled();
  });
});

describe('LiveCanvas as the scene editor', () => {
  it('draws the start poses being edited, not the live ones', async () => {
    // The lab's pusher and object elsewhere than the scene's start: (0.1, 0.2) and (0.2, -0.1) m.
    const live = state([0.1, 0.2], [0.2, -0.1, 0]);
    const { rerender } = render(LiveCanvas, props({ liveState: live }));
    await frame((c) => expectDisc(c.discs(SLIDER).at(-1), [320 + 0.2 * 540, 240 + 0.1 * 540, 0.05115 * 540]));
    await rerender(props({ liveState: live, editable: true }));
    // The scene's start: object at (-0.22, 0) m, pusher at (-0.3, 0) m.
    await frame((c) => expectDisc(c.discs(SLIDER).at(-1), [320 - 0.22 * 540, 240, 0.05115 * 540]));
    await frame((c) => expectDisc(c.discs(PUSHER).at(-1), [320 - 0.3 * 540, 240, 0.0145 * 540]));
  });

  it('rounds a dragged position to 0.1 mm, in metres', async () => {
    const onMoved = vi.fn();
    render(LiveCanvas, props({ editable: true, onMoved }));
    await frame((c) => expect(c.discs(SLIDER)).toHaveLength(1));
    // To 300.089 mm, -12.34567 mm: the pointer lands between 0.1 mm steps.
    const to = [320 + 0.300089 * 540, 240 + 0.01234567 * 540];
    await fireEvent.pointerDown(canvas(), { clientX: 201.2, clientY: 240, pointerId: 1 });
    await fireEvent.pointerMove(canvas(), { clientX: to[0], clientY: to[1], pointerId: 1 });
    await fireEvent.pointerUp(canvas(), { clientX: to[0], clientY: to[1], pointerId: 1 });
    const moved = onMoved.mock.calls[0]![0] as Scene;
    expect(moved.sliders[0]!.pose.x).toBe(0.3001);
    expect(moved.sliders[0]!.pose.y).toBe(-0.0123);
  });
});
