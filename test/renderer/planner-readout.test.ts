// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import PlannerReadout from '../../src-renderer/src/components/PlannerReadout.svelte';
import { plannerStep } from '../session/sample-messages';

afterEach(cleanup);

describe('PlannerReadout', () => {
  it('ticks a planning clock against the control duration while the run waits for a step', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    try {
      const since = Date.now() / 1000;
      render(PlannerReadout, {
        step: null,
        active: true,
        waitingSince: since,
        maxExecutedActions: 20,
        controlDuration: 1,
      });
      const activity = screen.getByTestId('readout-activity');
      expect(activity.textContent).toMatch(/Planning step 0\s+0\.0 s \/ control 1\.00 s/);
      await vi.advanceTimersByTimeAsync(2500);
      expect(activity.textContent).toMatch(/Planning step 0\s+2\.5 s \/ control 1\.00 s/);
      // Longer than a control: marked.
      expect(activity.querySelector('.value')?.getAttribute('data-over')).toBe('true');
      expect(screen.getByTestId('readout-actions').textContent).toBe('0 of 20');
    } finally {
      vi.useRealTimers();
    }
  });

  it("shows the last step's numbers after the run and says when a step was re-planned", () => {
    const step = {
      ...plannerStep(3, 0),
      replan: { divergence: { translation: 0.0042, rotation: 0.01 }, replanned: true },
    };
    render(PlannerReadout, {
      step,
      active: false,
      waitingSince: null,
      maxExecutedActions: 20,
      controlDuration: 1,
    });
    expect(screen.getByTestId('readout-actions').textContent).toBe('4 of 20');
    expect(screen.getByTestId('readout-activity').textContent).toMatch(
      /Planning \(last step\)\s+0\.80 s \/ control 1\.00 s/,
    );
    expect(screen.getByTestId('readout-cost').textContent).toBe('2.500');
    expect(screen.getByTestId('readout-parareal').textContent).toBe('2 iterations');
    const replan = screen.getByTestId('readout-replan');
    expect(replan.textContent).toContain('re-planned (prediction off by 4.2 mm)');
    expect(replan.dataset.replanned).toBe('true');
  });
});

describe('planner readout: which model planned', () => {
  const fineStep = { ...plannerStep(3, 3), predictions: [], convergence: [] };

  it('names the fine model that auto chose when a step came without Parareal', () => {
    const workers = fineStep.timings.workers;
    render(PlannerReadout, {
      step: fineStep,
      active: false,
      waitingSince: null,
      maxExecutedActions: 20,
      controlDuration: 1,
      model: 'auto',
    });
    expect(screen.getByTestId('readout-model').textContent).toBe(
      `fine (auto, ${workers} worker${workers === 1 ? '' : 's'})`,
    );
    expect(screen.queryByTestId('readout-parareal')).toBeNull();
  });

  it('says auto chooses at the start before any step', () => {
    render(PlannerReadout, {
      step: null,
      active: false,
      waitingSince: null,
      maxExecutedActions: 20,
      controlDuration: 1,
      model: 'auto',
    });
    expect(screen.getByTestId('readout-parareal').textContent).toBe('auto: chosen at the start');
  });
});

describe('planner readout: planning that overruns the control', () => {
  const slow = (n: number, planning: number) => {
    const s = plannerStep(n, n);
    return { ...s, timings: { ...s.timings, planning } };
  };
  const props = (step: ReturnType<typeof slow>) => ({
    step,
    active: true,
    waitingSince: null,
    maxExecutedActions: 20,
    controlDuration: 1,
  });

  it('warns with what to do after three steps running planned slower than the control, and clears on one within it', async () => {
    const { rerender } = render(PlannerReadout, props(slow(0, 2.4)));
    await rerender(props(slow(1, 2.5)));
    expect(screen.queryByTestId('readout-overrun')).toBeNull();
    await rerender(props(slow(2, 2.7)));
    const warning = screen.getByTestId('readout-overrun');
    expect(warning.textContent).toMatch(/Planning overruns the control\s*3 steps, last 2\.70 s/);
    expect(warning.textContent).toContain('smaller model: coarse, or Parareal');
    await rerender(props(slow(3, 0.6)));
    expect(screen.queryByTestId('readout-overrun')).toBeNull();
  });
});
