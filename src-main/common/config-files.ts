/**
 * The operator's JSON files read from disk: scene files and the lab settings, each validated
 * against its contract schema. Reading files is Node's business, so it lives here and not in the
 * contract, which the renderer imports.
 */
import { readFileSync } from 'node:fs';
import { labSettingsSchema, virtualLabSettings, type LabSettings } from '#contract/lab-settings';
import type { Scene } from '#contract/scene';
import { NoSuchSceneFileError, parseScene, problemsOf, SceneFileError } from '#contract/scene-file';

export function loadSceneFile(file: string): Scene {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new NoSuchSceneFileError(file);
    throw new SceneFileError(file, [{ path: '', message: `cannot read file: ${(err as Error).message}` }]);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new SceneFileError(file, [{ path: '', message: `not valid JSON: ${(err as Error).message}` }]);
  }
  return parseScene(json, file);
}

/** The lab settings in `file`; the virtual lab when there is no file. Throws with field paths. */
export function loadLabSettings(file: string | null): LabSettings {
  if (!file) return virtualLabSettings;
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`${file}: cannot read the lab settings: ${(err as Error).message}`, { cause: err });
  }
  const r = labSettingsSchema.safeParse(json);
  if (!r.success)
    throw new Error(
      `${file}: invalid lab settings\n${problemsOf(r.error)
        .map((p) => `  ${p.path || '(root)'}: ${p.message}`)
        .join('\n')}`,
    );
  return r.data;
}
