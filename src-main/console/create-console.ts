/**
 * The console, composed once: its lab (the in-process virtual lab for dry runs, a real lab when
 * the settings name one) and the core that serves the console API over it. The Electron shell and
 * web mode differ only in how they carry the API to the page (IPC, HTTP) and where their settings
 * live, so both build the console here.
 */
import path from 'node:path';
import type { LabSettings } from '#contract/lab-settings';
import { scenesDir as appScenesDir, tasksDir as appTasksDir } from '../common/paths';
import type { SpawnWorker } from '../parareal/worker-transport';
import { defaultSessionsDir } from '../session/sessions-dir';
import { ConsoleCore } from './console-core';
import { createConsoleLab, type ConsoleLab } from './console-lab';
import type { FoxgloveSwitch } from './foxglove-switch';

/** The scene the console's lab starts on, in the scene library. */
export const DEFAULT_SCENE = 'isrr-obstacle.json';

export interface ConsoleOptions {
  lab: LabSettings;
  /** Shipped scenes (read only); default: the app's resources/scenes. */
  scenesDir?: string;
  /** The operator's scenes, where saves go; default: paths.ts userScenesDir(). */
  userScenesDir?: string;
  /** Task files of what-if and the planner presets; default: the app's resources/tasks. */
  tasksDir?: string;
  /** The scene the lab starts on, a file of the scene library; default: DEFAULT_SCENE. */
  sceneFile?: string;
  /** Where planner settings persist; null or absent: in memory only. */
  settingsFile?: string | null;
  /** Folder of session logs; default: the app's (session/sessions-dir.ts). */
  sessionsDir?: string;
  /** Fine-model worker processes (default: one per core). */
  workers?: number;
  /** How fine workers start (the shell's utility processes; default: Node child processes). */
  spawn?: SpawnWorker;
  /** The live Foxglove view; absent: the console has none. Closed with the console. */
  foxglove?: FoxgloveSwitch;
  /** Lines about the lab for the operator (the terminal, the event log). */
  report(line: string): void;
}

export interface Console {
  core: ConsoleCore;
  lab: ConsoleLab;
  /** Disposes the core, then closes the lab and the live view. */
  close(): Promise<void>;
}

export function createConsole(o: ConsoleOptions): Console {
  const scenesDir = o.scenesDir ?? appScenesDir;
  const lab = createConsoleLab({
    lab: o.lab,
    tasksDir: o.tasksDir ?? appTasksDir,
    defaultSceneFile: path.join(scenesDir, o.sceneFile ?? DEFAULT_SCENE),
    ...(o.workers !== undefined ? { workers: o.workers } : {}),
    ...(o.spawn ? { spawn: o.spawn } : {}),
    report: o.report,
  });
  const core = new ConsoleCore({
    runController: lab.runController,
    connections: lab.connections,
    calibration: lab.calibration,
    recovery: lab.recovery,
    labControl: lab.labControl,
    programRestart: lab.programRestart,
    whatIf: lab.whatIf,
    tableReading: lab.tableReading,
    scene: lab.scene,
    scenesDir,
    ...(o.userScenesDir ? { userScenesDir: o.userScenesDir } : {}),
    settingsFile: o.settingsFile ?? null,
    sessionsDir: o.sessionsDir ?? defaultSessionsDir(),
    ...(o.foxglove ? { foxglove: o.foxglove } : {}),
  });
  return {
    core,
    lab,
    async close() {
      core.dispose();
      await Promise.all([lab.close(), o.foxglove?.close()]);
    },
  };
}
