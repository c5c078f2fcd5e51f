/** Temp folders a test file makes, removed once its tests are done. */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

/**
 * A maker of temp folders named from `prefix`, each removed after the file's last test (this
 * registers the afterAll: call it at the top of the file).
 */
export function tempDirsPerFile(prefix: string): () => string {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  return () => {
    const d = mkdtempSync(path.join(os.tmpdir(), prefix));
    dirs.push(d);
    return d;
  };
}
