/**
 * The scene library: a folder of scene files the console may list, load and save. Names are
 * plain file names inside that folder, so neither transport can reach other files.
 */
import { readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { loadSceneFile } from '../common/config-files';
import type { Scene } from '#contract/scene';

const fileNamePattern = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}\.json$/;

export class SceneLibrary {
  constructor(readonly dir: string) {}

  list(): string[] {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return [];
    }
    return names.filter((n) => fileNamePattern.test(n) && !n.endsWith('.schema.json')).sort();
  }

  /** Reads and validates a scene; throws SceneFileError with field paths when it is invalid. */
  load(file: string): Scene {
    return loadSceneFile(this.resolve(file));
  }

  save(file: string, scene: Scene): void {
    mkdirSync(this.dir, { recursive: true });
    writeFileSync(this.resolve(file), `${JSON.stringify(scene, null, 2)}\n`);
  }

  private resolve(file: string): string {
    if (!fileNamePattern.test(file))
      throw new Error(`"${file}" is not a scene file name (name.json, no folders)`);
    return path.join(this.dir, file);
  }
}
