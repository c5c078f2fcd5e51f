/**
 * Joining the shard folders of one experiment (`parapush experiment merge`): every folder must
 * hold the same experiment, run at the same commit on the same inputs; their runs (and session
 * logs) are copied into the merged folder, which is claimed for that experiment first.
 */
import { cpSync, existsSync } from 'node:fs';
import path from 'node:path';
import { claimOutDir, configOf, readExperimentFile, type ExperimentFile } from './runner';

/** Shard folders that cannot be merged into `into`; the message says why. */
export class MergeError extends Error {
  override name = 'MergeError';
}

/** Merges `shards` into `into` (which may already hold a merge); returns the experiment's file. */
export function mergeShards(into: string, shards: readonly string[]): ExperimentFile {
  let config: ExperimentFile | null = null;
  for (const dir of [into, ...shards]) {
    if (!existsSync(path.join(dir, 'experiment.json'))) continue;
    const c = readExperimentFile(dir);
    if (
      config &&
      JSON.stringify({ ...configOf(config), commit: config.commit, inputs: config.inputs }) !==
        JSON.stringify({ ...configOf(c), commit: c.commit, inputs: c.inputs })
    )
      throw new MergeError(`${dir} belongs to another experiment than ${into} (or ran at another commit)`);
    config = c;
  }
  if (!config) throw new MergeError('no experiment.json found in --out or the shard folders');
  claimOutDir(into, config, config.commit, config.inputs);
  for (const dir of shards) {
    if (path.resolve(dir) === path.resolve(into)) continue;
    for (const sub of ['runs', 'sessions']) {
      const from = path.join(dir, sub);
      if (existsSync(from)) cpSync(from, path.join(into, sub), { recursive: true });
    }
  }
  return config;
}
