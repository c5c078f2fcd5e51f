// @vitest-environment jsdom
/**
 * What `auto` chose (issue 45, finding 7): the run's log records the model it planned with
 * (`/run/model`), and the session summary, the Sessions list and playback's planner readout say
 * it ("auto: fine, 2 workers", "fine (auto, 2 workers)"); a log without the record still reads
 * sensibly (the request, and that the choice is not in it).
 */
import { cleanup, render, screen } from '@testing-library/svelte';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionSummary } from '#contract/console-api';
import { defaultPlannerSettings } from '#contract/planner-settings';
import { SummaryBuilder } from '../../src-main/session/session-summary';
import PlannerReadout from '../../src-renderer/src/components/PlannerReadout.svelte';
import SessionList from '../../src-renderer/src/components/SessionList.svelte';
import { describeSession, requestedModel } from '../../src-renderer/src/lib/session-format';
import { plannerStep, sampleModelChoice, sampleScene } from './sample-messages';

afterEach(cleanup);

const encoder = new TextEncoder();
const message = (value: object) => encoder.encode(JSON.stringify({ mono: 0, wall: 1_700_000_000, ...value }));
const settings = (predictionModel: string) =>
  message({ mode: 'dry', scene: sampleScene, settings: { ...defaultPlannerSettings, predictionModel } });

/** The summary of a log with these settings and, when given, its `/run/model` record. */
function summaryOf(requested: string, choice?: object): SessionSummary {
  const b = new SummaryBuilder();
  b.add('/session/settings', 1n, settings(requested));
  if (choice) b.add('/run/model', 2n, message(choice));
  return b.build(false);
}

describe("auto's choice in the session summary", () => {
  it('names the model auto chose, its workers and why', () => {
    const s = summaryOf('auto', sampleModelChoice);
    expect(s.model).toBe('auto: fine, 2 workers');
    expect(s.prediction).toEqual({ ...sampleModelChoice });
  });

  it('names Parareal with its K when auto chose it on many workers', () => {
    const s = summaryOf('auto', {
      requested: 'auto',
      model: 'parareal:3',
      workers: 64,
      reason: 'auto: parareal:3 (...)',
    });
    expect(s.model).toBe('auto: parareal:3, 64 workers');
  });

  it('keeps a model asked for by name, with its workers', () => {
    expect(summaryOf('fine', { requested: 'fine', model: 'fine', workers: 1, reason: null }).model).toBe(
      'fine, 1 worker',
    );
  });

  it('reads a log without the record sensibly: what was asked for, and that the choice is not in it', () => {
    const s = summaryOf('auto');
    expect(s.model).toBe('auto (fine or Parareal; the choice is not in this log)');
    expect(s.prediction).toEqual({ requested: 'auto', model: null, workers: null, reason: null });
  });
});

describe("auto's choice in the Sessions list and in playback", () => {
  const listing = (summary: SessionSummary) => ({
    file: '2024-05-01T10-20-30-000Z_dry.mcap',
    state: 'complete' as const,
    summary: { ...summary, startedAt: 1_714_558_830 },
    problem: null,
    bytes: 1000,
  });

  it('lists the chosen model, with auto’s reason on hover', () => {
    const s = summaryOf('auto', sampleModelChoice);
    expect(describeSession(listing(s))).toMatchObject({
      model: 'auto: fine, 2 workers',
      modelReason: sampleModelChoice.reason,
    });
    render(SessionList, { sessions: [listing(s)], onOpen: () => {} });
    const model = screen.getByText('auto: fine, 2 workers');
    expect(model.getAttribute('title')).toBe(sampleModelChoice.reason);
  });

  it('plays a run back with the model it ran with: "fine (auto, N workers)", not "no Parareal"', () => {
    const s = summaryOf('auto', sampleModelChoice);
    expect(requestedModel(s)).toBe('auto');
    const fineStep = { ...plannerStep(3, 3), predictions: [], convergence: [] };
    const workers = fineStep.timings.workers;
    render(PlannerReadout, {
      step: fineStep,
      active: false,
      waitingSince: null,
      maxExecutedActions: null,
      controlDuration: 1,
      model: requestedModel(s),
    });
    expect(screen.getByTestId('readout-model').textContent).toBe(
      `fine (auto, ${workers} worker${workers === 1 ? '' : 's'})`,
    );
  });

  it('reads the request of logs summarised before it was kept from their model label', () => {
    const old = (model: string | null): SessionSummary => ({
      ...summaryOf('auto'),
      prediction: undefined,
      model,
    });
    expect(requestedModel(old('auto (fine or Parareal)'))).toBe('auto');
    expect(requestedModel(old('fine (MuJoCo)'))).toBe('fine');
    expect(requestedModel(old('parareal K=2, 4 slices (analytical coarse)'))).toBe('parareal');
    expect(requestedModel(old('coarse (learned)'))).toBe('coarse');
    expect(requestedModel(old(null))).toBeNull();
    expect(requestedModel(null)).toBeNull();
  });
});
