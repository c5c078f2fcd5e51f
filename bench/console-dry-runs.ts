/**
 * Console dry runs on the in-process virtual lab as the benchmarks make them (safety.ts,
 * dry-runs.ts): the console wired as `npm start` wires it, its runs recorded into a temp folder,
 * and one dry run started and followed to its end.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { outcomeOf } from '#contract/run-lifecycle';
import { createConsole, type Console } from '../src-main/console/create-console';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The console on the virtual lab, its lab on `sceneFile` of the scene library; logs go to a new temp folder. */
export function consoleOnVirtualLab(
  sceneFile: string,
  tempPrefix: string,
): Console & { sessionsDir: string } {
  const sessionsDir = mkdtempSync(path.join(os.tmpdir(), tempPrefix));
  const made = createConsole({
    lab: { kind: 'virtual', multicast: false },
    scenesDir: path.join(root, 'resources/scenes'),
    tasksDir: path.join(root, 'resources/tasks'),
    sceneFile,
    sessionsDir,
    report: () => {},
  });
  return { ...made, sessionsDir };
}

/**
 * Starts a dry run and polls the core (every 0.1 s) until the run has an outcome; `whilePolling`
 * runs at each poll before it (a bench's deadline, say). Returns how the run ended.
 */
export async function dryRunToEnd(
  core: Console['core'],
  whilePolling: () => Promise<unknown> | void = () => {},
): Promise<{ outcome: string; reason: string | null }> {
  const started = await core.handle({ type: 'run.start', mode: 'dry' });
  if (!started.ok) throw new Error(started.error);
  for (;;) {
    const s = core.snapshot().run;
    const outcome = outcomeOf(s.phase);
    if (outcome) return { outcome, reason: s.reason };
    await whilePolling();
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The pause between runs: the next start waits for the last run to let go of the lab. */
export function betweenRuns(): Promise<void> {
  return new Promise((r) => setTimeout(r, 1000));
}
