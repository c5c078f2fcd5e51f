/**
 * A scene names a physics profile and the scene file loader applies it (the planner, the fine
 * model and the virtual lab all load scenes through it); a bad profile is the scene's `physics`
 * field's problem, named down to the profile's own field.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { PhysicsProfile } from '#contract/physics-profile';
import { SceneFileError } from '#contract/scene-file';
import { loadSceneFile } from '../../src-main/common/config-files';
import { boxScene } from './simulated-lab-log';

const dir = mkdtempSync(path.join(os.tmpdir(), 'parapush-physics-profile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const summary = {
  position: { p50: 0.001, p95: 0.002, rms: 0.0013 },
  yaw: { p50: 0.01, p95: 0.02, rms: 0.012 },
  count: 5,
};
const profile: PhysicsProfile = {
  format: 'parapush-physics-profile',
  version: 1,
  scene: 'physics-fit-box',
  objects: [{ id: 'target', mass: 0.8, friction: 0.4 }],
  table: { friction: 0.6 },
  pusher: { friction: 0.3 },
  mocap: { latency: 0.01 },
  fit: {
    parameters: ['friction', 'table'],
    estimates: [{ parameter: 'friction', value: 2, low: 1.9, high: 2.1, identifiable: true }],
    warnings: [],
    heldOut: null,
    training: { before: summary, after: summary },
  },
  provenance: {
    logs: [],
    commit: null,
    command: ['parapush', 'physics', 'fit'],
    createdAt: '2026-01-01T00:00:00Z',
  },
};

function sceneNaming(physics: string): string {
  const file = path.join(dir, `scene-${physics.replace(/\W/g, '_')}.json`);
  writeFileSync(file, JSON.stringify({ ...boxScene(), physics }));
  return file;
}

describe('a scene that names a physics profile', () => {
  it("takes the profile's masses and frictions", () => {
    writeFileSync(path.join(dir, 'lab.json'), JSON.stringify(profile));
    const scene = loadSceneFile(sceneNaming('lab.json'));
    expect(scene.sliders[0]!.mass).toBe(0.8);
    expect(scene.sliders[0]!.friction).toBe(0.4);
    expect(scene.table.friction).toBe(0.6);
    expect(scene.pusher!.friction).toBe(0.3);
    expect(scene.physics).toBe('lab.json');
  });

  it("names a bad profile field as the scene's physics problem", () => {
    const bad = { ...profile, objects: [{ id: 'target', mass: -1, friction: 0.4 }] };
    writeFileSync(path.join(dir, 'bad.json'), JSON.stringify(bad));
    const file = sceneNaming('bad.json');
    expect(() => loadSceneFile(file)).toThrow(SceneFileError);
    expect(() => loadSceneFile(file)).toThrow(
      /physics: bad\.json: objects\[0\]\.mass: must be greater than 0/,
    );
    expect(() => loadSceneFile(sceneNaming('missing.json'))).toThrow(
      /physics: missing\.json: .*no such file|physics: missing\.json/,
    );
  });

  it('refuses a profile fitted for other objects, naming the object', () => {
    const other = { ...profile, scene: 'elsewhere', objects: [{ id: 'puck', mass: 0.5, friction: 0.2 }] };
    writeFileSync(path.join(dir, 'other.json'), JSON.stringify(other));
    expect(() => loadSceneFile(sceneNaming('other.json'))).toThrow(
      /physics: .*other\.json has no object "target" \(it has puck\): it was fitted for scene "elsewhere"/,
    );
  });
});
