/** Runs `parapush` as a user does (node bin/parapush.mjs ...) and returns its exit code and output. */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from './scenes';

const run = promisify(execFile);

/**
 * How long a command may take, s: just under Vitest's 60 s test timeout (a command starts in a
 * few seconds, but a starved two-core machine can take tens), so a command that never ends (a
 * socket left open) fails its test with its output rather than as a bare test timeout.
 */
export const CLI_TIMEOUT = 55;

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function cli(...args: string[]): Promise<CliResult> {
  return cliWithin(CLI_TIMEOUT, ...args);
}

/** `cli` with its own time limit (s); past it the command is killed and the call fails with its output. */
export async function cliWithin(timeout: number, ...args: string[]): Promise<CliResult> {
  try {
    const r = await run(process.execPath, [path.join(repoRoot, 'bin/parapush.mjs'), ...args], {
      cwd: repoRoot,
      timeout: timeout * 1000,
      killSignal: 'SIGKILL',
    });
    return { code: 0, ...r };
  } catch (err) {
    const e = err as { code: number | null; killed?: boolean; stdout: string; stderr: string };
    if (e.killed)
      throw new Error(
        `parapush ${args.join(' ')} did not end within ${timeout} s\n` +
          `--- stdout ---\n${e.stdout}\n--- stderr ---\n${e.stderr}`,
        { cause: err },
      );
    return { code: e.code ?? 1, stdout: e.stdout, stderr: e.stderr };
  }
}

/**
 * `parapush run` of the shipped isrr-obstacle task with the robot and motion capture on 127.0.0.1,
 * plus `flags`: for flags it must refuse before anything connects.
 */
export function cliRunIsrr(...flags: string[]): Promise<CliResult> {
  const task = path.join(repoRoot, 'resources/tasks/isrr-obstacle.json');
  return cli('run', '--robot', '127.0.0.1', '--mocap', '127.0.0.1', '--task', task, ...flags);
}
