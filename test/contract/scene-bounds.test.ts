/**
 * Physical bounds of a scene file (issue 16): a scene is edited by hand and over the console API,
 * so a pusher speed the UR5 never moves at, thousands of obstacles or a timestep that turns a
 * rollout into a hang must be refused with the field named.
 */
import { describe, expect, it } from 'vitest';
import { SCENE_LIMITS } from '#contract/safety-limits';
import { sceneSchema } from '#contract/scene';
import { pushGeometryOf } from '../../src-main/learned/geometry';
import { parseScene } from '#contract/scene-file';
import { MAX_SLIDERS } from '../../src-main/learned/slots';
import { minimalSceneJson, sceneProblems } from '../helpers/scene-problems';

const good = minimalSceneJson();
type SceneJson = typeof good & Record<string, unknown>;

const problemsFor = (mutate: (s: SceneJson) => void) => sceneProblems(good as SceneJson, mutate);

const obstacle = (i: number) => ({
  id: `o${i}`,
  shape: { kind: 'cylinder', radius: 0.01, height: 0.05 },
  pose: { x: 0.4, y: 0.3 },
});

describe('scene bounds', () => {
  it.each([
    [
      'a 1000 m/s pusher',
      (s: SceneJson) => (s.limits = { maxPusherSpeed: 1000 }),
      'limits.maxPusherSpeed',
      /at most 0\.5 m\/s/,
    ],
    [
      '20,000 obstacles',
      (s: SceneJson) => (s.obstacles = Array.from({ length: 20_000 }, (_, i) => obstacle(i))),
      'obstacles',
      /at most 32 obstacles/,
    ],
    [
      'a 1e-12 s fine timestep',
      (s: SceneJson) => (s.fine = { timestep: 1e-12 }),
      'fine.timestep',
      /at least 0\.0001 s/,
    ],
    ['a 1 s fine timestep', (s: SceneJson) => (s.fine = { timestep: 1 }), 'fine.timestep', /at most 0\.01 s/],
    ['a 1e6 m table', (s: SceneJson) => (s.table.size = { x: 1e6, y: 1e6 }), 'table.size.x', /at most 5 m/],
    [
      'a 10 m slider',
      (s: SceneJson) => (s.sliders[0]!.shape.radius = 10),
      'sliders[0].shape.radius',
      // 10 reads as millimetres: the message says scene files are in metres.
      /10 is more than 1 m; scene files are in metres/,
    ],
    ['a 1 t slider', (s: SceneJson) => (s.sliders[0]!.mass = 1000), 'sliders[0].mass', /at most 50 kg/],
    ['friction 100', (s: SceneJson) => (s.table.friction = 100), 'table.friction', /at most 5/],
    ['a 2 m pusher', (s: SceneJson) => (s.pusher.radius = 2), 'pusher.radius', /at most 1 m/],
    [
      'nine sliders',
      (s: SceneJson) =>
        (s.sliders = Array.from({ length: 9 }, (_, i) => ({ ...good.sliders[0]!, id: `s${i}` }))),
      'sliders',
      /at most 8 sliders/,
    ],
  ])('refuses %s, naming the field', (_label, mutate, fieldPath, message) => {
    const problems = problemsFor(mutate);
    const hit = problems.find((p) => p.path === fieldPath);
    expect(hit, JSON.stringify(problems.slice(0, 3))).toBeDefined();
    expect(hit!.message).toMatch(message);
  });

  it('accepts the limits themselves', () => {
    const s = structuredClone(good) as SceneJson;
    s.limits = { maxPusherSpeed: SCENE_LIMITS.maxPusherSpeed };
    s.obstacles = Array.from({ length: SCENE_LIMITS.obstacles }, (_, i) => obstacle(i));
    s.fine = { timestep: SCENE_LIMITS.fineTimestep.min };
    expect(parseScene(s, 'ok.json').obstacles).toHaveLength(SCENE_LIMITS.obstacles);
    s.fine = { timestep: SCENE_LIMITS.fineTimestep.max };
    expect(parseScene(s, 'ok.json').fine.timestep).toBe(SCENE_LIMITS.fineTimestep.max);
  });

  it('allows more sliders than the learned model has slots, which it refuses where it is chosen', () => {
    expect(SCENE_LIMITS.sliders).toBeGreaterThan(MAX_SLIDERS);
    const s = structuredClone(good) as SceneJson;
    s.sliders = Array.from({ length: MAX_SLIDERS + 1 }, (_, i) => ({ ...good.sliders[0]!, id: `s${i}` }));
    s.goal = { ...good.goal, slider: 's0' };
    expect(() => pushGeometryOf(sceneSchema.parse(s))).toThrow(/learned model has 4 slots/);
  });
});
