// @vitest-environment jsdom
/**
 * The live charts (components/Plot.svelte, components/Plots.svelte) with the real uPlot, drawing
 * on a recording 2D context: which series each chart gets from a planner step and the step
 * timings, whole-number ticks on counted axes (iterations, steps) however few or many points,
 * the legend's latest values, and the note inside an empty chart.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { type PlannerStep } from '#contract/planner-events';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { StepTiming } from '../../src-renderer/src/state/console-state.svelte';
import { RecordingContext, RecordingPath2D } from '../helpers/recording-canvas';

import Plot from '../../src-renderer/src/components/Plot.svelte';
import Plots from '../../src-renderer/src/components/Plots.svelte';

let contexts: RecordingContext[];
let intersections: { callback: IntersectionObserverCallback; targets: Element[] }[];

beforeAll(() => vi.stubGlobal('Path2D', RecordingPath2D));
afterAll(() => vi.unstubAllGlobals());

beforeEach(() => {
  contexts = [];
  intersections = [];
  vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockImplementation(function (this: HTMLCanvasElement) {
    const c = new RecordingContext(this);
    contexts.push(c);
    return c as unknown as RenderingContext;
  } as unknown as HTMLCanvasElement['getContext']);
  vi.stubGlobal(
    'IntersectionObserver',
    class {
      private entry: { callback: IntersectionObserverCallback; targets: Element[] };
      constructor(callback: IntersectionObserverCallback) {
        this.entry = { callback, targets: [] };
        intersections.push(this.entry);
      }
      observe(target: Element) {
        this.entry.targets.push(target);
      }
      disconnect() {
        this.entry.targets = [];
      }
    },
  );
  Element.prototype.scrollIntoView = vi.fn();
});

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

/** The x axis tick labels as drawn (Plot.svelte mirrors them on data-x-ticks). */
function xTicks(section: HTMLElement): string[] {
  const box = section.querySelector<HTMLElement>('.box')!;
  return (box.dataset.xTicks ?? '').split(' ').filter(Boolean);
}

/** The legend's value per series label, as uPlot shows it. */
function legend(section: HTMLElement): Record<string, string> {
  const rows = [...section.querySelectorAll('.u-legend .u-series')];
  return Object.fromEntries(
    rows.map((r) => [
      r.querySelector('.u-label')!.textContent!.trim(),
      r.querySelector('.u-value')!.textContent!.trim(),
    ]),
  );
}

const plot = (patch: Record<string, unknown> = {}) => ({
  title: 'Best cost per optimizer iteration (no unit)',
  xLabel: 'optimizer iteration',
  yLabel: 'no unit',
  series: [{ label: 'best cost', stroke: '#2e7d32' }],
  data: [
    [1, 2, 3],
    [3.2, 2.9, 2.5],
  ],
  ...patch,
});

describe('Plot', () => {
  it('draws its series in its colour, one point per x, and names it in the legend with the latest value', async () => {
    render(Plot, plot({ integerX: true }));
    const section = screen.getByRole('region', { name: 'Best cost per optimizer iteration (no unit)' });
    await waitFor(() => expect(legend(section)['best cost']).toBe('2.5'));
    expect(section.dataset.empty).toBe('false');
    const strokes = contexts.flatMap((c) => c.polylines('#2e7d32'));
    expect(strokes.length).toBeGreaterThan(0);
    const line = strokes.at(-1)!;
    // Three points, left to right; the cost falls, so each is lower on the canvas (y grows down).
    const xs = line.points.map((p) => p[0]);
    const ys = line.points.map((p) => p[1]);
    expect(new Set(xs).size).toBe(3);
    expect([...xs].sort((a, b) => a - b)).toEqual(xs);
    expect(ys[1]!).toBeGreaterThan(ys[0]!);
    expect(ys[2]!).toBeGreaterThan(ys[1]!);
  });

  it('ticks a counted axis at whole numbers only', async () => {
    render(Plot, plot({ integerX: true }));
    const section = screen.getByRole('region');
    await waitFor(() => expect(xTicks(section).length).toBeGreaterThan(0));
    expect(xTicks(section)).toEqual(['1', '2', '3']);
  });

  it('ticks a counted axis at whole numbers with many steps too, in a round increment', async () => {
    const steps = Array.from({ length: 87 }, (_, i) => i);
    render(Plot, plot({ integerX: true, data: [steps, steps.map((s) => 10 - s / 10)] }));
    const section = screen.getByRole('region');
    await waitFor(() => expect(xTicks(section).length).toBeGreaterThan(1));
    const ticks = xTicks(section).map(Number);
    for (const t of ticks) expect(Number.isInteger(t)).toBe(true);
    const increments = new Set(ticks.slice(1).map((t, i) => t - ticks[i]!));
    expect(increments.size).toBe(1);
    expect([1, 2, 5, 10, 20, 50]).toContain([...increments][0]);
    expect(ticks[0]).toBeGreaterThanOrEqual(0);
    expect(ticks.at(-1)).toBeLessThanOrEqual(86);
  });

  it('puts a single point of a counted axis in a range around it, not on 0 to 100', async () => {
    render(Plot, plot({ integerX: true, data: [[4], [1.5]] }));
    const section = screen.getByRole('region');
    await waitFor(() => expect(xTicks(section).length).toBeGreaterThan(0));
    expect(xTicks(section)).toEqual(['3', '4', '5']);
  });

  it('leaves a measured axis free to tick between whole numbers', async () => {
    render(
      Plot,
      plot({
        data: [
          [0, 0.1, 0.2, 0.3],
          [1, 2, 3, 4],
        ],
      }),
    );
    const section = screen.getByRole('region');
    await waitFor(() => expect(xTicks(section).length).toBeGreaterThan(0));
    expect(xTicks(section).some((t) => !Number.isInteger(Number(t)))).toBe(true);
  });

  it('says inside the plotting area that there is nothing to plot yet', async () => {
    render(Plot, plot({ data: [[], []] }));
    const section = screen.getByRole('region');
    expect(section.dataset.empty).toBe('true');
    await waitFor(() => expect(within(section).getByText('no planner steps yet')).toBeTruthy());
  });

  it('with steps but no values, gives its own reason', async () => {
    render(
      Plot,
      plot({
        data: [
          [0, 1],
          [NaN, NaN],
        ],
        emptyText: 'no Parareal in these steps',
      }),
    );
    const section = screen.getByRole('region');
    expect(section.dataset.empty).toBe('true');
    await waitFor(() => expect(within(section).getByText('no Parareal in these steps')).toBeTruthy());
    expect(legend(section)['best cost']).toBe('–');
  });
});

describe('Plots', () => {
  const step: PlannerStep = {
    step: 4,
    time: 9,
    sliderIds: ['object'],
    start: [0, 0, 0.1, 0, 0, 0, 0, 0, 0, 0],
    plan: [[0.02, 0]],
    controlDuration: 1,
    predictions: [],
    convergence: [
      { iteration: 1, translation: 0.004, rotation: 0.02 },
      { iteration: 2, translation: 0.0005, rotation: 0.002 },
    ],
    costs: [3.2, 2.9, 2.5, 2.45],
    timings: { planning: 0.8, prediction: 0.6, workers: 2, theoreticalSpeedup: 2 },
  };
  const timings: StepTiming[] = [0, 1, 2, 3, 4].map((s) => ({
    step: s,
    planning: 0.5 + 0.1 * s,
    controlDuration: 1,
    theoreticalSpeedup: s < 2 ? null : 2,
  }));

  const chart = (id: string) => document.getElementById(id)!;

  it('feeds each chart its series from the step and the timings, counted axes ticked at whole numbers', async () => {
    render(Plots, { step, timings });
    const convergence = chart('plot-convergence');
    // Iterations 1 and 2; the change in mm and in degrees, the latest in the legend.
    await waitFor(() =>
      expect(legend(convergence)).toMatchObject({ 'translation mm': '0.5', 'rotation deg': '0.115' }),
    );
    expect(xTicks(convergence)).toEqual(['1', '2']);
    await waitFor(() => expect(legend(chart('plot-cost'))).toMatchObject({ 'best cost': '2.45' }));
    await waitFor(() =>
      expect(legend(chart('plot-timing'))).toMatchObject({ 'planning s': '0.9', 'control s': '1' }),
    );
    // A 200 px chart has room for a tick every other iteration or step: whole numbers still.
    for (const [id, first, last] of [
      ['plot-cost', 1, 4],
      ['plot-timing', 0, 4],
      ['plot-speedup', 0, 4],
    ] as const) {
      const ticks = xTicks(chart(id)).map(Number);
      expect(ticks.length, id).toBeGreaterThanOrEqual(2);
      for (const t of ticks) expect(Number.isInteger(t) && t >= first && t <= last, `${id}: ${t}`).toBe(true);
    }
    await waitFor(() => expect(legend(chart('plot-speedup'))).toMatchObject({ 'theoretical ×': '2' }));
    for (const id of ['plot-convergence', 'plot-cost', 'plot-timing', 'plot-speedup'])
      expect(chart(id).dataset.empty, id).toBe('false');
    // The series in their colours: translation solid blue, rotation dashed purple.
    const blue = contexts.flatMap((c) => c.polylines('#1565c0'));
    const purple = contexts.flatMap((c) => c.polylines('#ab47bc'));
    expect(blue.at(-1)!.points).toHaveLength(2);
    expect(blue.at(-1)!.dash).toEqual([]);
    expect(purple.at(-1)!.dash).toEqual([6, 3]);
  });

  it('says why a chart is empty: no steps yet, or none of what it plots in them', async () => {
    // A step planned without Parareal (the fine model) and without optimizer iterations logged:
    // Parareal's charts are left out, and the column says why.
    render(Plots, {
      step: { ...step, convergence: [], costs: [] },
      timings: timings.map((t) => ({ ...t, theoreticalSpeedup: null })),
    });
    await waitFor(() =>
      expect(within(chart('plot-cost')).getByText('no optimizer iterations in this step')).toBeTruthy(),
    );
    expect(document.getElementById('plot-convergence')).toBeNull();
    expect(document.getElementById('plot-speedup')).toBeNull();
    expect(screen.getByTestId('plots-no-parareal').textContent).toContain('planned without Parareal');
    expect(screen.getByRole('navigation', { name: 'Charts' }).textContent).not.toContain('Speedup');
    expect(chart('plot-timing').dataset.empty).toBe('false');
    expect(within(chart('plot-timing')).queryByText(/^no /)).toBeNull();
    cleanup();
    render(Plots, { step: null, timings: [] });
    for (const id of ['plot-convergence', 'plot-cost', 'plot-timing', 'plot-speedup'])
      await waitFor(() => expect(within(chart(id)).getByText('no planner steps yet')).toBeTruthy());
  });

  it('marks the charts scrolled out of sight in its index and brings one into view on a click', async () => {
    render(Plots, { step, timings });
    const observer = intersections.find((o) => o.targets.length > 0)!;
    expect(observer.targets.map((t) => t.id)).toEqual([
      'plot-convergence',
      'plot-cost',
      'plot-timing',
      'plot-speedup',
    ]);
    observer.callback(
      observer.targets.map(
        (target, i) =>
          // Convergence scrolled out above, Planning time and Speedup below.
          ({
            target,
            intersectionRatio: i === 1 ? 1 : 0.3,
            boundingClientRect: { top: i === 0 ? -200 : 600 },
            rootBounds: { top: 0 },
          }) as unknown as IntersectionObserverEntry,
      ),
      {} as IntersectionObserver,
    );
    const index = screen.getByRole('navigation', { name: 'Charts' });
    await waitFor(() =>
      expect(within(index).getByRole('button', { name: /Planning time/ }).dataset.offscreen).toBe('true'),
    );
    expect(within(index).getByRole('button', { name: 'Cost' }).dataset.offscreen).toBe('false');
    expect(within(index).getByRole('button', { name: /Convergence/ }).textContent).toBe('↑Convergence');
    expect(within(index).getByRole('button', { name: /Speedup/ }).textContent).toBe('↓Speedup');
    await fireEvent.click(within(index).getByRole('button', { name: /Speedup/ }));
    expect(Element.prototype.scrollIntoView).toHaveBeenCalledTimes(1);
    expect(vi.mocked(Element.prototype.scrollIntoView).mock.contexts[0]).toBe(chart('plot-speedup'));
  });
});
