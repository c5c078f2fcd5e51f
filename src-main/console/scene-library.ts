/**
 * The scene library: the shipped scenes (read only) and the operator's own folder, the one place
 * the console saves scenes to. Names are plain file names inside one of the two folders, so
 * neither transport can reach other files, and no save can land among the shipped resources.
 */
import { existsSync, mkdirSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadSceneFile } from '../common/config-files';
import { isInside, resourcesDir } from '../common/paths';
import type { Scene } from '#contract/scene';
import type { SceneRef } from '#contract/console-api';

const fileNamePattern = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}\.json$/;

export class SceneLibrary {
  /**
   * @param shippedDir the shipped scenes (resources/scenes in the app), never written
   * @param userDir the operator's scenes (paths.ts userScenesDir), where saves go
   * @param readOnly folders no save may reach (default: the app's resources)
   */
  constructor(
    readonly shippedDir: string,
    readonly userDir: string,
    readonly readOnly: readonly string[] = [resourcesDir],
  ) {}

  list(): SceneRef[] {
    const names = (dir: string): string[] => {
      try {
        return readdirSync(dir)
          .filter((n) => fileNamePattern.test(n) && !n.endsWith('.schema.json'))
          .sort();
      } catch {
        return [];
      }
    };
    return [
      ...names(this.userDir).map((file) => ({ file, source: 'user' as const })),
      ...names(this.shippedDir).map((file) => ({ file, source: 'shipped' as const })),
    ];
  }

  /** Reads and validates a scene; throws SceneFileError (naming the file) when it is invalid. */
  load(ref: SceneRef): Scene {
    return loadSceneFile(this.pathOf(ref));
  }

  /** Whether a save of `file` would replace a file of the operator's. */
  exists(file: string): boolean {
    return existsSync(this.pathOf({ file, source: 'user' }));
  }

  /** Writes the scene into the operator's folder; returns the file's path. */
  save(file: string, scene: Scene): string {
    const target = this.pathOf({ file, source: 'user' });
    const guarded = [this.shippedDir, ...this.readOnly];
    const refuse = (dir: string): never => {
      throw new Error(
        `refused to save ${file} into ${dir}: shipped files are read only (set $PARAPUSH_SCENES_DIR to a folder of your own)`,
      );
    };
    // By name first (nothing is created there), then as the disk has it (links resolved).
    for (const dir of guarded) if (isInside(target, dir)) refuse(dir);
    mkdirSync(this.userDir, { recursive: true });
    const real = realpathSync(this.userDir);
    for (const dir of guarded) if (isInside(real, realOrSelf(dir))) refuse(dir);
    writeFileSync(target, `${JSON.stringify(scene, null, 2)}\n`);
    return target;
  }

  pathOf(ref: SceneRef): string {
    if (!fileNamePattern.test(ref.file))
      throw new Error(`"${ref.file}" is not a scene file name (name.json, no folders)`);
    return path.join(ref.source === 'user' ? this.userDir : this.shippedDir, ref.file);
  }
}

function realOrSelf(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return path.resolve(dir);
  }
}
