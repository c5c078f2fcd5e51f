/**
 * A whole `physics fit`: runs split into fitting and held-out ones, the fit, the held-out error
 * before and after, and the physics profile with its provenance.
 */
import path from 'node:path';
import type { Scene } from '#contract/scene';
import { currentCommit } from '../experiments/provenance';
import type { ErrorSummary } from './check';
import { PhysicsLogError, type LoggedPushes } from './executed-pushes';
import {
  fitPhysics,
  fittedPusherFriction,
  multiStepError,
  SCENE_PHYSICS,
  sceneWith,
  type FitOptions,
  type FitResult,
} from './fit';
import type { PhysicsProfile } from '#contract/physics-profile';
import { sha256Of } from './profile-file';
import type { Replay } from './prediction-error';

export interface FitRun {
  fit: FitResult;
  heldOut: { runs: number; before: ErrorSummary; after: ErrorSummary } | null;
  profile: PhysicsProfile;
  fitted: Scene;
}

/** The runs held out for validation: every third (the third, sixth, ...), at least one of two or more. */
export function heldOutIndices(runs: number, heldOut: number | undefined): number[] {
  const n = heldOut ?? (runs >= 2 ? Math.max(1, Math.floor(runs / 3)) : 0);
  if (n >= runs) throw new Error(`cannot hold out ${n} of ${runs} runs: at least one must be fitted`);
  // Spread over the runs, so that held-out runs are not all from the end of a session.
  return Array.from({ length: n }, (_, i) => Math.floor(((i + 1) * runs) / (n + 1)));
}

export async function fitRun(
  replay: Replay,
  model: { scene: Scene; file: string | null },
  runs: readonly LoggedPushes[],
  o: FitOptions & { heldOut?: number; command: string[] },
): Promise<FitRun> {
  const { pusher } = model.scene;
  if (!pusher)
    throw new PhysicsLogError(
      `${model.file ?? `scene "${model.scene.name}"`} has no pusher: a fit replays the logged pushes on the scene's pusher`,
    );
  const held = new Set(heldOutIndices(runs.length, o.heldOut));
  const training = runs.filter((_, i) => !held.has(i));
  const validation = runs.filter((_, i) => held.has(i));
  const fit = await fitPhysics(replay, model.scene, training, o);
  const heldOut =
    validation.length === 0
      ? null
      : {
          runs: validation.length,
          before: await multiStepError(replay, model.scene, validation, SCENE_PHYSICS, o),
          after: await multiStepError(replay, model.scene, validation, fit.point, o),
        };
  const fitted = sceneWith(model.scene, fit.point);
  let commit: string | null;
  try {
    commit = currentCommit();
  } catch {
    commit = null;
  }
  const profile: PhysicsProfile = {
    format: 'parapush-physics-profile',
    version: 1,
    scene: model.scene.name,
    objects: fitted.sliders.map((s) => ({ id: s.id, mass: s.mass, friction: s.friction })),
    table: { friction: fitted.table.friction },
    pusher: { friction: fittedPusherFriction(pusher, fit.point) },
    mocap: { latency: fit.point.latency },
    fit: {
      parameters: [...o.parameters],
      estimates: fit.estimates,
      warnings: fit.warnings,
      heldOut,
      training: fit.training,
    },
    provenance: {
      logs: runs.map((r, i) => ({
        file: path.resolve(r.file),
        sha256: sha256Of(r.file),
        use: held.has(i) ? ('held-out' as const) : ('fit' as const),
      })),
      commit,
      command: o.command,
      createdAt: new Date().toISOString(),
    },
  };
  return { fit, heldOut, profile, fitted };
}
