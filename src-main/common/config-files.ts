/**
 * The operator's JSON files read from disk: scene files and the lab settings, each validated
 * against its contract schema. Reading files is Node's business, so it lives here and not in the
 * contract, which the renderer imports.
 */
import { labSettingsSchema, virtualLabSettings, type LabSettings } from '#contract/lab-settings';
import { sceneSchema, type Scene } from '#contract/scene';
import { NoSuchSceneFileError, SceneFileError } from '#contract/scene-file';
import { readStoredJson, StoredJsonError } from './stored-json';

/** The scene in `file`; throws SceneFileError (NoSuchSceneFileError for a missing file) with field paths. */
export function loadSceneFile(file: string): Scene {
  try {
    return readStoredJson(file, sceneSchema, { what: 'scene' });
  } catch (err) {
    if (!(err instanceof StoredJsonError)) throw err;
    // The console shows a scene's problems field by field: a SceneFileError carries them.
    throw err.fault === 'missing'
      ? new NoSuchSceneFileError(file)
      : new SceneFileError(file, [...err.problems]);
  }
}

/** The lab settings in `file`; the virtual lab when there is no file. Throws with field paths. */
export function loadLabSettings(file: string | null): LabSettings {
  if (!file) return virtualLabSettings;
  return readStoredJson(file, labSettingsSchema, { what: 'lab settings' });
}
