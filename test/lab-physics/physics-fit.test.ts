/**
 * `physics fit` on simulated lab logs with a known truth (the world = the model scene with its
 * physics changed): it recovers a changed object friction within 15 %, lowers the held-out
 * error, stays within its own uncertainty of the scene's values where the world is the scene,
 * says plainly that mass is not determined by these pushes, and names the combination of two
 * parameters that trade off.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  observedEnd,
  observedStart,
  readLoggedPushes,
  type LoggedPushes,
} from '../../src-main/lab-physics/executed-pushes';
import { fitPhysics } from '../../src-main/lab-physics/fit';
import { fitRun } from '../../src-main/lab-physics/fit-run';
import { applyPhysicsProfile, physicsProfileSchema } from '#contract/physics-profile';
import { inProcessReplay, type Replay } from '../../src-main/lab-physics/prediction-error';
import { cli, cliWithin } from '../helpers/cli';
import { boxScene, PROBE_CONTROLS, scaledPhysics, simulatedLabLog } from './simulated-lab-log';

vi.setConfig({ testTimeout: 240_000 });

const dir = mkdtempSync(path.join(os.tmpdir(), 'parapush-physics-fit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const replay = inProcessReplay();
afterAll(() => replay.dispose());

const model = boxScene();
/** Second and third runs: the probe's pushes mirrored and reordered, so held-out runs differ. */
const runControls: [number, number][][] = [
  PROBE_CONTROLS,
  PROBE_CONTROLS.map(([vx, vy]) => [vx, -vy] as [number, number]),
  [...PROBE_CONTROLS].reverse(),
];

async function logs(name: string, world: typeof model): Promise<string[]> {
  const files: string[] = [];
  for (const [i, controls] of runControls.entries())
    files.push(
      await simulatedLabLog({
        dir: path.join(dir, name),
        world,
        model,
        controls,
        noise: 0.0003,
        seed: i + 1,
      }),
    );
  return files;
}

let grippier: string[];
let matching: string[];
let grippierRuns: LoggedPushes[];
let matchingRuns: LoggedPushes[];

beforeAll(async () => {
  grippier = await logs('grippier', scaledPhysics(model, { friction: 2 }));
  matching = await logs('matching', model);
  grippierRuns = await Promise.all(grippier.map(readLoggedPushes));
  matchingRuns = await Promise.all(matching.map(readLoggedPushes));
});

describe('physics fit', () => {
  it('refuses a model scene without a pusher, naming the file', async () => {
    const { pusher: _pusher, ...noPusher } = model;
    await expect(
      fitRun(replay, { scene: noPusher, file: 'lab/no-pusher.json' }, grippierRuns, {
        parameters: ['friction'],
        horizon: 1,
        maxEvaluations: 4,
        command: ['test'],
      }),
    ).rejects.toThrow(/lab\/no-pusher\.json has no pusher/);
  });

  it('recovers a grippier object within 15 % and lowers the held-out error', async () => {
    const result = await fitRun(replay, { scene: model, file: null }, grippierRuns, {
      parameters: ['friction'],
      horizon: 1,
      maxEvaluations: 16,
      command: ['test'],
    });
    const friction = result.fit.estimates[0]!;
    expect(friction.value).toBeGreaterThan(2 * 0.85);
    expect(friction.value).toBeLessThan(2 * 1.15);
    expect(friction.identifiable).toBe(true);
    // The scene's physics, the optimiser's trials and the curvature's, at least.
    expect(result.fit.evaluations).toBeGreaterThanOrEqual(4);
    expect(result.heldOut!.after.position.p95).toBeLessThan(result.heldOut!.before.position.p95);
    const profile = physicsProfileSchema.parse(result.profile);
    expect(profile.provenance.logs.map((l) => l.use)).toEqual(['fit', 'held-out', 'fit']);
    expect(applyPhysicsProfile(model, profile).sliders[0]!.friction).toBeCloseTo(0.2 * friction.value, 9);
  });

  it('recovers a pusher-object friction below the pusher’s default, and writes the pusher’s into the profile', async () => {
    // Pusher and object half as grippy: their contact slides at 0.1, below the authors' 0.2 that
    // the pusher's coefficient defaults to (MuJoCo takes the larger of the two).
    const slicker = scaledPhysics(model, { friction: 0.5, pusher: 0.5 });
    const files = await logs('slicker', slicker);
    const runs = await Promise.all(files.map(readLoggedPushes));
    const result = await fitRun(replay, { scene: model, file: null }, runs, {
      parameters: ['friction'],
      horizon: 1,
      maxEvaluations: 16,
      heldOut: 0,
      command: ['test'],
    });
    const friction = result.fit.estimates[0]!;
    expect(friction.value).toBeGreaterThan(0.5 * 0.85);
    expect(friction.value).toBeLessThan(0.5 * 1.15);
    const fitted = applyPhysicsProfile(model, physicsProfileSchema.parse(result.profile));
    expect(fitted.pusher!.friction).toBeCloseTo(0.2 * friction.value, 9);
    expect(fitted.sliders[0]!.friction).toBeCloseTo(model.sliders[0]!.friction * friction.value, 9);
  });

  it('stays within its own uncertainty of the scene where the world is the scene', async () => {
    const fit = await fitPhysics(replay, model, matchingRuns, {
      parameters: ['friction'],
      horizon: 1,
      maxEvaluations: 8,
      bootstrap: 3,
    });
    const e = fit.estimates[0]!;
    expect(fit.bootstrap).toHaveLength(3);
    expect(e.low).toBeLessThanOrEqual(1);
    expect(e.high).toBeGreaterThanOrEqual(1);
  });

  it('flags mass as not determined where pushes hardly see it, and misses it by far', async () => {
    const heavier = await simulatedLabLog({
      dir: path.join(dir, 'heavier'),
      world: scaledPhysics(model, { friction: 2, mass: 1.6 }),
      model,
      controls: PROBE_CONTROLS,
      noise: 0.0003,
    });
    const fit = await fitPhysics(replay, model, [await readLoggedPushes(heavier)], {
      parameters: ['friction', 'mass', 'latency'],
      horizon: 1,
      maxEvaluations: 20,
    });
    const friction = fit.estimates.find((e) => e.parameter === 'friction')!;
    const mass = fit.estimates.find((e) => e.parameter === 'mass')!;
    expect(friction.value).toBeGreaterThan(2 * 0.85);
    expect(friction.value).toBeLessThan(2 * 1.15);
    // The world's mass is 1.6 times the scene's: the fit cannot tell, and says so.
    expect(Math.abs(mass.value - 1.6) / 1.6).toBeGreaterThan(0.15);
    expect(mass.identifiable).toBe(false);
    expect(fit.warnings.join('\n')).toMatch(/mass .* is not determined .*friction ratios, not mass/);
  });

  it('names the combination the logs determine where two parameters trade off', async () => {
    // A model whose prediction sees only the product mass x table friction (as quasi-static
    // pushing sees only ratios): the object ends ln(mass * table / 1.2) mm further along x.
    const ids = model.sliders.map((s) => s.id);
    const productOnly: Replay = async (scene, jobs) => {
      const k = Math.log(((scene.sliders[0]!.mass / 0.5) * (scene.table.friction / 0.8)) / 1.2);
      const run = grippierRuns[0]!;
      return jobs.map((j) => {
        const push = run.pushes.findIndex((_, k) => observedStart(run, k, 0).every((v, i) => v === j.x[i]));
        const end = Float64Array.from(observedEnd(run, push, 0));
        end[2] = end[2]! + 0.001 * k;
        return j.controls.map(() => end);
      });
    };
    const fit = await fitPhysics(productOnly, model, grippierRuns.slice(0, 1), {
      parameters: ['mass', 'table'],
      horizon: 1,
      maxEvaluations: 30,
    });
    expect(ids).toHaveLength(1);
    const text = fit.warnings.join('\n');
    expect(text).toMatch(/mass and table trade off/);
    expect(text).toMatch(/what they determine is (mass\^0\.71 · table\^0\.71|mass\^-0\.71 · table\^-0\.71)/);
    expect(fit.point.mass * fit.point.table).toBeCloseTo(1.2, 2);
  });

  it('fits from the command line on two workers and writes the profile and the fitted scene', async () => {
    const out = path.join(dir, 'lab-physics.json');
    // Two workers' start-up and a dozen evaluations: longer than a quick command on a loaded machine.
    const r = await cliWithin(
      150,
      'physics',
      'fit',
      ...grippier,
      '--out',
      out,
      '--fit',
      'friction',
      '--horizon',
      '1',
      '--max-evaluations',
      '4',
      '--workers',
      '2',
    );
    expect(r.stderr).toMatch(/fit \[/);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/friction +x\d\.\d{3} \(/);
    const profile = physicsProfileSchema.parse(JSON.parse(readFileSync(out, 'utf8')));
    expect(profile.provenance.command).toContain('--fit');
    expect(profile.provenance.logs).toHaveLength(3);
    const scene = JSON.parse(readFileSync(path.join(dir, 'lab-physics.scene.json'), 'utf8')) as {
      sliders: { friction: number }[];
    };
    expect(scene.sliders[0]!.friction).toBeCloseTo(profile.objects[0]!.friction, 12);
    const bad = await cli('physics', 'fit', ...grippier, '--out', out, '--fit', 'mass,colour');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--fit: expected a comma list of mass, friction, table, latency/);
  });
});
