// @vitest-environment jsdom
/**
 * The Planner view's prediction-model controls: the integrator, the timestep in milliseconds (SI
 * seconds in the settings sent), the loop mode and `auto`, each with its hint; a timestep the
 * control duration does not divide is shown next to its field and never sent.
 */
import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import { afterEach, describe, expect, it } from 'vitest';
import type { ConsoleCommand } from '#contract/console-api';
import {
  defaultPlannerSettings,
  plannerPresets,
  plannerSettingsSchema,
  type PlannerSettings,
} from '#contract/planner-settings';
import { offeredPlanners } from '../../src-main/planning/planners';
import PlannerView from '../../src-renderer/src/views/PlannerView.svelte';
import { fakeClient } from '../helpers/fake-client';

afterEach(cleanup);

/** Answers settings.set as the core does. */
function fakeCore() {
  return fakeClient((command) => {
    if (command.type === 'settings.set') return { settings: command.settings };
    throw new Error(`unexpected ${command.type}`);
  });
}

const sentSettings = (sent: ConsoleCommand[]): PlannerSettings => {
  const last = sent.at(-1);
  if (last?.type !== 'settings.set') throw new Error('no settings sent');
  return last.settings as PlannerSettings;
};

async function type(label: string, value: string): Promise<void> {
  const input = screen.getByLabelText(label) as HTMLInputElement;
  input.value = value;
  await fireEvent.change(input);
}

describe('Planner view: prediction model settings', () => {
  it("lists the planner registry's offered entries by name, described, and sends the kind chosen", async () => {
    const { client, sent } = fakeCore();
    const planners = offeredPlanners();
    render(PlannerView, { client, settings: defaultPlannerSettings, presets: [], planners });
    const select = screen.getByRole('combobox', { name: 'Planner' }) as HTMLSelectElement;
    expect([...select.options].map((o) => [o.value, o.text, o.title])).toEqual(
      planners.map((p) => [p.kind, p.name, p.description]),
    );
    expect(planners.map((p) => p.kind)).toEqual(['mpc', 'tampc']);
    await fireEvent.change(select, { target: { value: 'tampc' } });
    await fireEvent.click(screen.getByRole('button', { name: 'Apply settings' }));
    await screen.findByRole('status');
    expect(sentSettings(sent).planner).toBe('tampc');
  });

  it('shows the default prediction in ms and sends RK4 at 1 ms, asynchronous, as SI', async () => {
    const { client, sent } = fakeCore();
    render(PlannerView, {
      client,
      settings: defaultPlannerSettings,
      presets: [],
      planners: offeredPlanners(),
    });
    expect((screen.getByLabelText('Prediction timestep (ms)') as HTMLInputElement).value).toBe('2');
    const integrator = screen.getByLabelText('Prediction integrator') as HTMLSelectElement;
    expect(integrator.value).toBe('Euler');
    expect([...integrator.options].map((o) => o.value)).toEqual(['RK4', 'Euler', 'implicitfast']);
    expect(screen.queryByText(/plan the next step while the arm executes this one/)).toBeNull();

    await fireEvent.change(integrator, { target: { value: 'RK4' } });
    await type('Prediction timestep (ms)', '1');
    await fireEvent.change(screen.getByLabelText('Loop mode'), { target: { value: 'asynchronous' } });
    expect(screen.getByText('plan the next step while the arm executes this one')).toBeTruthy();
    await fireEvent.click(screen.getByRole('button', { name: 'Apply settings' }));
    await screen.findByRole('status');
    expect(sentSettings(sent)).toMatchObject({
      prediction: { integrator: 'RK4', timestep: 0.001 },
      loopMode: 'asynchronous',
    });
  });

  it('offers auto with its hint and sends it', async () => {
    const { client, sent } = fakeCore();
    render(PlannerView, {
      client,
      settings: defaultPlannerSettings,
      presets: [],
      planners: offeredPlanners(),
    });
    await fireEvent.change(screen.getByLabelText('Prediction model'), { target: { value: 'auto' } });
    expect(
      screen.getByText("fine or Parareal, whichever plans faster on this machine's workers"),
    ).toBeTruthy();
    await fireEvent.click(screen.getByRole('button', { name: 'Apply settings' }));
    await screen.findByRole('status');
    expect(sentSettings(sent).predictionModel).toBe('auto');
  });

  it('shows a timestep that does not divide the control duration next to its field, and sends nothing', async () => {
    const { client, sent } = fakeCore();
    render(PlannerView, {
      client,
      settings: defaultPlannerSettings,
      presets: [],
      planners: offeredPlanners(),
    });
    await type('Prediction timestep (ms)', '3');
    await fireEvent.click(screen.getByRole('button', { name: 'Apply settings' }));
    const problem = document.querySelector('[data-field="prediction.timestep"]');
    expect(problem?.textContent).toBe('must divide the control duration (1 s) into whole steps');
    expect(problem?.closest('label')?.classList.contains('invalid')).toBe(true);
    expect(screen.getByRole('alert').textContent).toMatch(/^prediction\.timestep: must divide/);
    expect(sent).toEqual([]);
    // Fixed, it goes through and the field's problem is gone.
    await type('Prediction timestep (ms)', '0.5');
    await fireEvent.click(screen.getByRole('button', { name: 'Apply settings' }));
    await screen.findByRole('status');
    expect(document.querySelector('[data-field="prediction.timestep"]')).toBeNull();
    expect(sentSettings(sent).prediction.timestep).toBe(0.0005);
  });
});

describe('Planner view: presets', () => {
  const presets = (Object.keys(plannerPresets) as (keyof typeof plannerPresets)[]).map((name) => ({
    name,
    label: plannerPresets[name].label,
  }));
  const shownPreset = () => (screen.getByLabelText('Preset') as HTMLSelectElement).value;

  it('starts on Recommended, the settings the console starts with', () => {
    render(PlannerView, { client: fakeCore().client, settings: defaultPlannerSettings, presets });
    expect(shownPreset()).toBe('recommended');
  });

  it('names the preset the settings are, and none for settings of the operator', async () => {
    const isrr = plannerSettingsSchema.parse(plannerPresets['isrr2019-parareal-1'].settings);
    const { rerender } = render(PlannerView, { client: fakeCore().client, settings: isrr, presets });
    expect(shownPreset()).toBe('isrr2019-parareal-1');
    await rerender({ settings: { ...isrr, rollouts: 7 } });
    expect(shownPreset()).toBe('');
    expect(screen.getByRole('option', { name: 'custom settings (choose a preset…)' })).toBeTruthy();
  });
});
