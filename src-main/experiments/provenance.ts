/**
 * Where an experiment's results came from, as data: the commit whose code ran it and the command
 * that reruns it. `parapush experiment verify` checks the claim on the current code.
 */
import { execFileSync } from 'node:child_process';
import { appRoot } from '../common/paths';

/**
 * What decides an experiment's numbers: the code, the task, scene and model files and the locked
 * dependencies. An output folder inside the checkout (docs/experiments) does not make it dirty.
 */
const resultPaths = [
  'src-main',
  'src-shared',
  'src-workers',
  'resources',
  'package.json',
  'package-lock.json',
];

/** A full commit hash, with "-dirty" when the code that decides results differs from it. */
export const commitPattern = /^[0-9a-f]{40}(-dirty)?$/;

export class ProvenanceError extends Error {}

/** The checkout's commit, marked -dirty when tracked result-deciding files are modified. */
export function currentCommit(root: string = appRoot): string {
  const git = (...args: string[]): string =>
    execFileSync('git', ['-C', root, ...args], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }).trim();
  let head: string;
  try {
    head = git('rev-parse', 'HEAD');
  } catch {
    throw new ProvenanceError(
      `${root} is not a git checkout: an experiment records the commit it ran at, so run it from a clone`,
    );
  }
  const dirty = git('status', '--porcelain', '--untracked-files=no', '--', ...resultPaths) !== '';
  return dirty ? `${head}-dirty` : head;
}
