/**
 * The settings store keeps the operator's planner settings across console starts, and opens a file
 * an older console wrote with since-renamed fields, rewriting it in today's names.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SettingsStore } from '../../src-main/console/settings-store';
import { defaultPlannerSettings, plannerPresets } from '#contract/planner-settings';

const dirs: string[] = [];
function settingsFile(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'parapush-settings-'));
  dirs.push(dir);
  return path.join(dir, 'planner-settings.json');
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('settings store', () => {
  it('persists what is set and opens with it', () => {
    const file = settingsFile();
    const chosen = { ...defaultPlannerSettings, horizon: 8, maxPusherSpeed: 0.05 };
    new SettingsStore(file).set(chosen);
    const reopened = new SettingsStore(file);
    expect(reopened.loadProblem).toBeNull();
    expect(reopened.get()).toEqual(chosen);
  });

  it('opens a file with the pusher speed limit as actionLimit and rewrites it as maxPusherSpeed', () => {
    const file = settingsFile();
    // What the console wrote before the rename: the ISRR 2019 Parareal preset with a 50 mm/s limit.
    const { maxPusherSpeed: _, ...rest } = plannerPresets['isrr2019-parareal-1'].settings;
    writeFileSync(file, JSON.stringify({ ...rest, actionLimit: 0.05 }, null, 2));
    const store = new SettingsStore(file);
    expect(store.loadProblem).toBeNull();
    expect(store.get()).toMatchObject({ maxPusherSpeed: 0.05, predictionModel: 'parareal', slices: 4 });
    const rewritten = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    expect(rewritten).toEqual(store.get());
    expect(rewritten).not.toHaveProperty('actionLimit');
  });

  it('falls back to the defaults, saying why, on a file it cannot read, and leaves the file alone', () => {
    const file = settingsFile();
    const stored = JSON.stringify({ ...defaultPlannerSettings, horizon: 0 });
    writeFileSync(file, stored);
    const store = new SettingsStore(file);
    expect(store.get()).toEqual(defaultPlannerSettings);
    expect(store.loadProblem).toMatch(/ignored .*planner-settings\.json/);
    expect(readFileSync(file, 'utf8')).toBe(stored);
  });

  it('refuses a planner the registry does not have, in a file and when set', () => {
    const file = settingsFile();
    writeFileSync(file, JSON.stringify({ ...defaultPlannerSettings, planner: 'mppi' }));
    const store = new SettingsStore(file);
    expect(store.get()).toEqual(defaultPlannerSettings);
    expect(store.loadProblem).toMatch(/unknown planner "mppi"/);
    expect(() => store.set({ ...defaultPlannerSettings, planner: 'mppi' })).toThrow(/unknown planner "mppi"/);
    expect(store.set({ ...defaultPlannerSettings, planner: 'uampc' }).planner).toBe('uampc');
  });
});
