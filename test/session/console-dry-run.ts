/**
 * A console dry run as the operator makes one: the console core on the in-process virtual lab,
 * isrr-obstacle with small plans, started, left to push a little after its first planner step,
 * then aborted with the Esc key (unless it ended before: on a starved machine the supervisor may
 * stop it for stale motion capture); it returns once the run's session log is closed. Its waits are
 * long: on a shared two-core machine the first step can take tens of seconds.
 */
import { expect } from 'vitest';
import type { ConsoleCore } from '../../src-main/console/console-core';
import { VirtualLabConnection } from '../../src-main/lab-link/virtual-lab-connection';
import type { ConsoleEvent } from '#contract/console-api';
import type { FoxgloveSwitch } from '../../src-main/console/foxglove-switch';
import { ConsoleOnLab, fastDryRun } from '../helpers/console-on-lab';
import { waitUntil } from '../helpers/wait-until';

export async function consoleDryRun(o: {
  sessionsDir: string;
  /** The console's live Foxglove view (its setting), as the app and web mode give it. */
  foxglove?: FoxgloveSwitch;
}): Promise<ConsoleEvent[]> {
  const lab = new VirtualLabConnection();
  const consoleOnLab = new ConsoleOnLab({
    virtualLab: lab,
    sessionsDir: o.sessionsDir,
    ...(o.foxglove ? { foxglove: o.foxglove } : {}),
  });
  const { core, events } = consoleOnLab;
  try {
    const ok = async (raw: Parameters<ConsoleCore['handle']>[0]) =>
      expect(await core.handle(raw)).toMatchObject({ ok: true });
    await ok({ type: 'scene.load', file: 'isrr-obstacle.json' });
    await ok({ type: 'settings.set', settings: fastDryRun(3) });
    await ok({ type: 'run.start', mode: 'dry' });
    const seen = () => JSON.stringify(events.filter((e) => e.type === 'log' || e.type === 'run').slice(-6));
    // The second plan: the first push has run to its end (its prediction's error logged).
    await waitUntil(
      'a second planner step',
      () => events.some((e) => e.type === 'planner-step' && e.step.step >= 1),
      { seen, timeout: 120 },
    );
    // Let the second push go on a little: commands on the wire, the arm moving.
    await new Promise((r) => setTimeout(r, 300));
    await ok({ type: 'run.abort', source: 'escape-key' });
    await waitUntil(
      'the log to be closed',
      () =>
        events.some((e) => e.type === 'log' && /^session log .*: (aborted|failed|finished)/.test(e.message)),
      { seen, timeout: 60 },
    );
  } finally {
    await consoleOnLab.dispose();
    await lab.close();
  }
  return events;
}
