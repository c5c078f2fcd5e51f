/**
 * The operator's JSON files read from disk: scene files and the lab settings, each validated
 * against its contract schema. Reading files is Node's business, so it lives here and not in the
 * contract, which the renderer imports.
 */
import path from 'node:path';
import { labSettingsSchema, virtualLabSettings, type LabSettings } from '#contract/lab-settings';
import { applyPhysicsProfile, physicsProfileSchema, PhysicsProfileError } from '#contract/physics-profile';
import { sceneSchema, type Scene } from '#contract/scene';
import { NoSuchSceneFileError, SceneFileError } from '#contract/scene-file';
import { readStoredJson, StoredJsonError } from './stored-json';

/** The scene in `file`; throws SceneFileError (NoSuchSceneFileError for a missing file) with field paths. */
export function loadSceneFile(file: string): Scene {
  let scene: Scene;
  try {
    scene = readStoredJson(file, sceneSchema, { what: 'scene' });
  } catch (err) {
    if (!(err instanceof StoredJsonError)) throw err;
    // The console shows a scene's problems field by field: a SceneFileError carries them.
    throw err.fault === 'missing'
      ? new NoSuchSceneFileError(file)
      : new SceneFileError(file, [...err.problems]);
  }
  return scene.physics === undefined ? scene : withNamedProfile(file, scene, scene.physics);
}

/** The scene with the physics profile it names (relative to its file); its problems are the scene's `physics` field's. */
function withNamedProfile(file: string, scene: Scene, named: string): Scene {
  const profileFile = path.resolve(path.dirname(file), named);
  try {
    const profile = readStoredJson(profileFile, physicsProfileSchema, { what: 'physics profile' });
    return applyPhysicsProfile(scene, profile, profileFile);
  } catch (err) {
    if (err instanceof StoredJsonError)
      throw new SceneFileError(
        file,
        err.problems.map((p) => ({
          path: 'physics',
          message: `${named}: ${p.path ? `${p.path}: ` : ''}${p.message}`,
        })),
      );
    if (err instanceof PhysicsProfileError)
      throw new SceneFileError(file, [{ path: 'physics', message: err.message }]);
    throw err;
  }
}

/** The lab settings in `file`; the virtual lab when there is no file. Throws with field paths. */
export function loadLabSettings(file: string | null): LabSettings {
  if (!file) return virtualLabSettings;
  return readStoredJson(file, labSettingsSchema, { what: 'lab settings' });
}
