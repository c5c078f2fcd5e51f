/**
 * Recovery from a protective stop may not slip in while a run starts, and it is for the robot that
 * stopped: the real lab's, not whichever lab the last run used (a dry run's virtual one).
 */
import { describe, expect, it } from 'vitest';
import path from 'node:path';
import { ConsoleCore } from '../../src-main/console/console-core';
import type { LabConnection } from '../../src-main/lab-link/lab-connection';
import { recoveryTarget } from '../../src-main/console/robot-recovery';
import type { RunController, RunSink } from '../../src-main/console/run-controller';
import { repoRoot } from '../helpers/scenes';

/** A run that starts and keeps running (its lab is owned until it ends). */
class StartingRun implements RunController {
  started = 0;
  async start(_r: unknown, sink: RunSink): Promise<void> {
    this.started++;
    sink.status({ event: { type: 'run-started' }, safety: 'safe', armed: true, elapsed: 0 });
  }
  async arm(): Promise<void> {}
  async pause(): Promise<void> {}
  async resume(): Promise<void> {}
  abort(): void {}
}

/** A lab connection whose robot reports `safetyMode` (null: not connected). */
function lab(name: string, safetyMode: string | null): LabConnection {
  return {
    description: name,
    current: () => (safetyMode === null ? null : { robot: { latest: { safetyMode } } }),
  } as unknown as LabConnection;
}

describe('recovery races', () => {
  it('refuses robot.recover while a run start is between its awaits', async () => {
    const core = new ConsoleCore({
      scenesDir: path.join(repoRoot, 'resources/scenes'),
      runController: new StartingRun(),
      sessionsDir: null,
    });
    await core.handle({ type: 'scene.load', file: 'isrr-obstacle.json' });
    const start = core.handle({ type: 'run.start', mode: 'dry' });
    const recover = core.handle({ type: 'robot.recover', confirm: true });
    expect(await recover).toEqual({
      ok: false,
      error: 'the robot cannot be recovered while a run is starting: abort the run first',
    });
    expect(await start).toMatchObject({ ok: true });
    // Once started, the lifecycle itself refuses it.
    expect(await core.handle({ type: 'robot.recover', confirm: true })).toEqual({
      ok: false,
      error: 'the robot cannot be recovered while a run is running: abort the run first',
    });
  });

  it('targets the lab whose robot is in the protective stop, the real one first', () => {
    const realStopped = lab('real lab', 'PROTECTIVE_STOP');
    const realNormal = lab('real lab', 'NORMAL');
    const virtualStopped = lab('virtual lab', 'PROTECTIVE_STOP');
    const virtualNormal = lab('virtual lab', 'NORMAL');
    // After a dry run the last run's lab is the virtual one; the stopped arm is the real one.
    expect(recoveryTarget([realStopped, virtualNormal])).toBe(realStopped);
    expect(recoveryTarget([realStopped, virtualStopped])).toBe(realStopped);
    expect(recoveryTarget([realNormal, virtualStopped])).toBe(virtualStopped);
    expect(recoveryTarget([realNormal, virtualNormal])).toBe(realNormal);
    expect(recoveryTarget([null, virtualNormal])).toBe(virtualNormal);
    expect(recoveryTarget([lab('real lab', null), virtualStopped])).toBe(virtualStopped);
    expect(recoveryTarget([null, null])).toBeNull();
  });
});
