/**
 * The console core on a virtual lab session (in its own thread or in process), wired as the
 * console wires it (run controller, live connections, the checklist's program restart, and the
 * robot recovery when asked), with what the tests drive it by: every event it published, commands
 * that throw when refused, the last run status, and polling that says where the run was when it
 * gives up.
 */
import path from 'node:path';
import type { ConsoleEvent, RunStatus } from '#contract/console-api';
import { plannerPresets, type PlannerSettings } from '#contract/planner-settings';
import { ConsoleCore } from '../../src-main/console/console-core';
import type { FoxgloveSwitch } from '../../src-main/console/foxglove-switch';
import { LabStatusSource } from '../../src-main/lab-link/lab-status';
import { LabRunController } from '../../src-main/console/lab-run-controller';
import { RunOwner } from '../../src-main/run/run-owner';
import { ProgramRestarter } from '../../src-main/console/program-restart';
import { recoveryTarget, RobotRecovery } from '../../src-main/console/robot-recovery';
import type { VirtualLabConnection } from '../../src-main/lab-link/virtual-lab-connection';
import { repoRoot } from './scenes';

/** Small plans for quick dry runs: the analytical coarse model, two controls, four rollouts. */
export function fastDryRun(maxExecutedActions: number): PlannerSettings {
  return {
    ...plannerPresets['isrr2019-coarse'].settings,
    horizon: 2,
    slices: 2,
    rollouts: 4,
    maxExecutedActions,
  };
}

export interface ConsoleOnLabOptions {
  virtualLab: VirtualLabConnection;
  /** The lab real runs go to (the virtual one standing in for it); null or absent: none configured. */
  realLab?: VirtualLabConnection | null;
  /** Folder of the session logs; absent: no logs. */
  sessionsDir?: string;
  /** The console's live Foxglove view (its setting), as the app and web mode give it. */
  foxglove?: FoxgloveSwitch;
  /**
   * Give the core the Setup view's robot recovery, wired as the console wires it
   * (console-lab.ts): to the lab whose robot is in a protective stop, the real lab's first.
   */
  recovery?: boolean;
}

export class ConsoleOnLab {
  readonly controller: LabRunController;
  readonly connections: LabStatusSource;
  readonly core: ConsoleCore;
  /** Every event the core published, in order (empty it with `events.length = 0`). */
  readonly events: ConsoleEvent[] = [];

  constructor(o: ConsoleOnLabOptions) {
    const controller = new LabRunController({
      virtualLab: o.virtualLab,
      realLab: o.realLab ?? null,
      tasksDir: path.join(repoRoot, 'resources/tasks'),
      owner: new RunOwner({ workers: 1 }),
      liveRateHz: 30,
    });
    this.controller = controller;
    // The lab read ten times a second, so the tests see it change soon.
    this.connections = new LabStatusSource(controller, 0.1);
    this.core = new ConsoleCore({
      scenesDir: path.join(repoRoot, 'resources/scenes'),
      runController: controller,
      connections: this.connections,
      // The checklist's "Restart control program", as console-lab.ts wires it.
      programRestart: new ProgramRestarter({
        session: () => controller.currentConnection(),
        runInProgress: () => controller.runInProgress(),
      }),
      ...(o.sessionsDir !== undefined ? { sessionsDir: o.sessionsDir } : {}),
      ...(o.foxglove ? { foxglove: o.foxglove } : {}),
      ...(o.recovery
        ? {
            recovery: new RobotRecovery({
              session: () => recoveryTarget([o.realLab ?? null, o.virtualLab]),
              runInProgress: () => controller.runInProgress(),
            }),
          }
        : {}),
    });
    this.core.subscribe((e) => this.events.push(e));
  }

  /** The command's result; a refusal throws its error. */
  command = async (raw: Parameters<ConsoleCore['handle']>[0]) => {
    const r = await this.core.handle(raw);
    if (!r.ok) throw new Error(r.error);
    return r.result;
  };

  lastRun = (): RunStatus | undefined =>
    this.events.filter((e) => e.type === 'run').at(-1)?.status as RunStatus | undefined;

  /** Polls `get` until it gives something; past `timeout` s it fails with the run's last status. */
  until = async <T>(what: string, get: () => T | undefined | false, timeout = 20): Promise<T> => {
    const end = Date.now() + timeout * 1000;
    for (;;) {
      const v = get();
      if (v) return v;
      if (Date.now() > end)
        throw new Error(`timed out waiting for ${what} (run: ${JSON.stringify(this.lastRun() ?? null)})`);
      await new Promise((r) => setTimeout(r, 5));
    }
  };

  /** Stops the console and its fine workers (kept warm across its runs until then). */
  async dispose(): Promise<void> {
    this.connections.dispose();
    this.core.dispose();
    await this.controller.close();
  }
}
