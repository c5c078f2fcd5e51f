/**
 * createConsole composes the console that web mode and the Electron shell both serve: its lab
 * starts on the scene asked for, the core speaks of that scene, the settings persist where asked,
 * and closing it closes the live view it was given.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createConsole } from '../../src-main/console/create-console';
import { FoxgloveSwitch } from '../../src-main/console/foxglove-switch';
import { repoRoot } from '../helpers/scenes';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('createConsole', () => {
  it('starts on the scene asked for, persists settings where asked, and closes its live view', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'parapush-create-console-'));
    dirs.push(dir);
    const settingsFile = path.join(dir, 'planner-settings.json');
    const foxglove = new FoxgloveSwitch();
    await foxglove.set(0);
    expect(foxglove.status().url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+/);
    const { core, lab, close } = createConsole({
      lab: { kind: 'virtual', multicast: false },
      scenesDir: path.join(repoRoot, 'resources/scenes'),
      tasksDir: path.join(repoRoot, 'resources/tasks'),
      sceneFile: 'wafr-clutter.json',
      settingsFile,
      sessionsDir: path.join(dir, 'sessions'),
      workers: 1,
      foxglove,
      report: () => {},
    });
    try {
      expect(core.snapshot().sceneFile).toBe('wafr-clutter.json');
      expect(lab.scene.file).toBe('wafr-clutter.json');
      expect(core.snapshot().foxglove.url).toBe(foxglove.status().url);
      const preset = await core.handle({ type: 'settings.preset', preset: 'isrr2019-parareal-1' });
      expect(preset.ok).toBe(true);
      expect(existsSync(settingsFile)).toBe(true);
      expect(JSON.parse(readFileSync(settingsFile, 'utf8'))).toEqual(core.snapshot().settings);
    } finally {
      await close();
    }
    expect(foxglove.status().url).toBeNull();
  });
});
