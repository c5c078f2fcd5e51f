/** A repository root of its own holding the given bench results, for the bench blocks' generators. */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The stamp bench/report.ts writes beside every result. */
export const MACHINE = {
  cpu: 'Test CPU',
  cores: 4,
  node: 'v20.0.0',
  platform: 'linux x64',
  date: '2026-01-02T03:04:05Z',
};

/** A temporary root whose bench/results holds each NAME.json of `results`. */
export function benchRoot(results: Record<string, unknown>): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'parapush-bench-block-'));
  mkdirSync(path.join(root, 'bench/results'), { recursive: true });
  for (const [name, data] of Object.entries(results))
    writeFileSync(path.join(root, 'bench/results', `${name}.json`), JSON.stringify(data));
  return root;
}
