/**
 * Where an experiment's results came from, as data: the commit whose code ran it, the command that
 * reruns it and the content hashes of its input files. `parapush experiment verify` checks the
 * claim on the current code and inputs.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { appRoot, isInside, learnedModelDirInUse } from '../common/paths';
import { parseRunSpec } from './run-spec';

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

/**
 * What an experiment ran on besides the code: the task file, its scene file and, for models with
 * the learned coarse model, that model's files. Their content hashes go into experiment.json, so
 * `experiment verify` can name an input that changed (a scene edited in place, a retrained model)
 * instead of only the first state that no longer repeats.
 */
export const inputRoleSchema = z.enum(['task', 'scene', 'model']);
export type InputRole = z.infer<typeof inputRoleSchema>;

export const inputFileSchema = z
  .object({
    role: inputRoleSchema,
    /** Relative to the checkout when inside it (resources/scenes/isrr-obstacle.json), else absolute. */
    file: z.string().min(1),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
  })
  .strict();
export type InputFile = z.infer<typeof inputFileSchema>;

/** How an input file is named in experiment.json: relative to the checkout when inside it. */
function recordedName(file: string, root: string): string {
  return isInside(file, root) ? path.relative(root, file).split(path.sep).join('/') : path.resolve(file);
}

function sha256Of(file: string): string | null {
  try {
    return createHash('sha256').update(readFileSync(file)).digest('hex');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

export interface InputSources {
  taskFile: string;
  sceneFile: string;
  /** The experiment's model specs: any with @learned adds the learned model's files. */
  models: readonly string[];
  /** The learned model's folder (default: the one runs load, paths.ts learnedModelDirInUse). */
  learnedModelDir?: string;
  /** The checkout input names are relative to (default: the app's). */
  root?: string;
}

/** The experiment's input files and their hashes now; a missing file has no hash (null). */
export function currentInputs(o: InputSources): (Omit<InputFile, 'sha256'> & { sha256: string | null })[] {
  const root = o.root ?? appRoot;
  const learned = o.models.some((m) => parseRunSpec(m).coarse === 'learned');
  const modelDir = o.learnedModelDir ?? learnedModelDirInUse();
  const files: [InputRole, string][] = [
    ['task', o.taskFile],
    ['scene', o.sceneFile],
  ];
  // model.json holds the weights' SHA-256 and the loader checks them against it
  // (learned/model-file.ts), so its hash covers the weights too.
  if (learned) files.push(['model', path.join(modelDir, 'model.json')]);
  return files.map(([role, file]) => ({ role, file: recordedName(file, root), sha256: sha256Of(file) }));
}

/** The inputs an experiment records when it starts (every one must exist: the runs read them). */
export function recordInputs(o: InputSources): InputFile[] {
  return currentInputs(o).map((input) => {
    if (input.sha256 === null) throw new ProvenanceError(`${input.file}: no such file`);
    return { ...input, sha256: input.sha256 };
  });
}

/** A recorded input whose content is not the recorded one now. */
export interface ChangedInput {
  recorded: InputFile;
  /** The file the current run reads in its place, or null when there is none. */
  now: { file: string; sha256: string | null } | null;
}

/** What verify knows of the inputs: not recorded (older experiments), or the changed ones. */
export type InputCheck = { recorded: false } | { recorded: true; changed: ChangedInput[] };

/**
 * Compares recorded inputs with the current ones, role by role: a file moved but unchanged is the
 * same input, a file at the same place with other content is a changed one.
 */
export function checkInputs(
  recorded: readonly InputFile[] | undefined,
  now: readonly (Omit<InputFile, 'sha256'> & { sha256: string | null })[],
): InputCheck {
  if (!recorded) return { recorded: false };
  const changed: ChangedInput[] = [];
  for (const r of recorded) {
    const current = now.find((n) => n.role === r.role);
    if (!current || current.sha256 !== r.sha256)
      changed.push({ recorded: r, now: current ? { file: current.file, sha256: current.sha256 } : null });
  }
  return { recorded: true, changed };
}

const roleWords: Record<InputRole, string> = {
  task: 'task file',
  scene: 'scene file',
  model: 'learned model',
};

/** The operator's lines about the inputs: one when none were recorded, one per changed file. */
export function describeInputCheck(check: InputCheck): string[] {
  if (!check.recorded)
    return [
      'input files not checked: this experiment.json records no hashes of its task, scene and model files',
    ];
  return check.changed.map(({ recorded, now }) => {
    const short = (h: string) => h.slice(0, 12);
    const where = now && now.file !== recorded.file ? ` (now read from ${now.file})` : '';
    if (!now || now.sha256 === null)
      return `${roleWords[recorded.role]} ${recorded.file} is missing: the experiment ran on sha256 ${short(recorded.sha256)}`;
    return `${roleWords[recorded.role]} ${recorded.file} differs from the one the experiment ran${where}: sha256 ${short(recorded.sha256)} recorded, ${short(now.sha256)} now`;
  });
}
