/**
 * The physics of a lab's scene fitted to its identification runs, for the console: the scene's
 * probe logs in the sessions folder (newest first, at most MAX_RUNS), `physics fit`'s fit
 * (lab-physics/) of the objects' and the table's friction, the profile saved in the lab's physics
 * folder under the scene's name, and a scene's physics as saved there, for the lab's runs.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Scene } from '#contract/scene';
import type { LabPhysicsFit } from '#contract/lab-physics-fit';
import { defaultSetupDir } from '../calibration/setup-file';
import { PhysicsLogError, readLoggedPushes } from '../lab-physics/executed-pushes';
import { fitRun } from '../lab-physics/fit-run';
import { applyPhysicsProfile, type Fittable } from '#contract/physics-profile';
import { loadPhysicsProfile } from '../lab-physics/profile-file';
import type { Replay } from '../lab-physics/prediction-error';
import { sessionFileNames } from '../session/sessions-dir';

/** The label of an identification run's session log (its file name ends `_probe.mcap`). */
export const PROBE_LOG_LABEL = 'probe';
/** Identification runs fitted at most: the newest. */
const MAX_RUNS = 6;
/**
 * What the console fits: the frictions, which quasi-static pushes show (`physics fit`'s default;
 * mass and latency are for the command line, with more runs).
 */
const PARAMETERS: Fittable[] = ['friction', 'table'];

/** Where the lab's fitted physics lives: beside its setups. */
export function physicsDir(): string {
  return path.join(defaultSetupDir(), 'physics');
}

export function physicsProfileFile(sceneName: string, dir = physicsDir()): string {
  return path.join(dir, `${sceneName.replace(/[^A-Za-z0-9_-]/g, '-')}.json`);
}

/** The scene with the physics fitted for it on this lab, when there is one; else the scene. */
export function withLabPhysics(scene: Scene, dir = physicsDir()): Scene {
  const file = physicsProfileFile(scene.name, dir);
  return existsSync(file) ? applyPhysicsProfile(scene, loadPhysicsProfile(file), file) : scene;
}

export async function fitLabPhysics(o: {
  sessionsDir: string;
  scene: Scene;
  replay: Replay;
  dir?: string;
  /** What to fit (default PARAMETERS) and the optimiser's budget (default 40 evaluations). */
  parameters?: Fittable[];
  maxEvaluations?: number;
}): Promise<LabPhysicsFit> {
  const names = (await sessionFileNames(o.sessionsDir))
    .filter((n) => n.endsWith(`_${PROBE_LOG_LABEL}.mcap`))
    .sort()
    .reverse();
  const runs = [];
  for (const name of names) {
    if (runs.length >= MAX_RUNS) break;
    let run;
    try {
      run = await readLoggedPushes(path.join(o.sessionsDir, name));
    } catch (err) {
      // A run stopped before it pushed, or a log cut short: nothing to fit in it.
      if (err instanceof PhysicsLogError) continue;
      throw err;
    }
    if (run.scene.name === o.scene.name) runs.push(run);
  }
  if (runs.length === 0)
    throw new Error(`no identification run of scene "${o.scene.name}" in ${o.sessionsDir}: run one first`);
  const r = await fitRun(o.replay, { scene: o.scene, file: null }, runs, {
    parameters: o.parameters ?? PARAMETERS,
    horizon: 3,
    maxEvaluations: o.maxEvaluations ?? 40,
    command: ['console', 'physics.fit'],
  });
  const file = physicsProfileFile(o.scene.name, o.dir);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(r.profile, null, 2)}\n`);
  const errors = r.heldOut ?? r.fit.training;
  return {
    scene: o.scene.name,
    runs: runs.length,
    heldOut: r.heldOut?.runs ?? 0,
    estimates: r.fit.estimates.map((e) => ({ ...e })),
    warnings: r.fit.warnings,
    before: errors.before.position,
    after: errors.after.position,
    profile: file,
  };
}
