/**
 * Everything the console needs of a lab, wired once for both front ends (the Electron shell and
 * web mode): the virtual lab (in a thread of its own) for dry runs (started at launch on the default scene, so
 * the console opens connected), the configured real lab when there is one, the run controller,
 * the live connection source and what-if planners on the same worker settings.
 */
import path from 'node:path';
import { loadSceneFile } from '../common/config-files';
import type { Scene } from '#contract/scene';
import type { LabSettings } from '#contract/lab-settings';
import type { SpawnWorker } from '../parareal/worker-transport';
import type { WhatIfPlannerFactory } from '../session/what-if';
import { CalibrationWizard } from './calibration-wizard';
import { LabStatusSource } from '../lab-link/lab-status';
import { LabControl } from './lab-control';
import { LabRunController } from './lab-run-controller';
import { RunOwner } from '../run/run-owner';
import { realLabConnection } from '../lab-link/real-lab-connection';
import { ProgramRestarter } from './program-restart';
import { recoveryTarget, RobotRecovery } from './robot-recovery';
import { VirtualLabConnection } from '../lab-link/virtual-lab-connection';
import { whatIfPlanners } from './what-if-planners';
import { tableReading } from '../lab-link/table-now';
import type { TableReading } from './lab-state-feed';

export interface ConsoleLabOptions {
  lab: LabSettings;
  tasksDir: string;
  /** Scene file the virtual lab starts on before any run asks for another. */
  defaultSceneFile: string;
  workers?: number;
  spawn?: SpawnWorker;
  /** Progress and problems in words (the terminal in web mode, the log in the app). */
  report(line: string): void;
}

export interface ConsoleLab {
  runController: LabRunController;
  /** The virtual lab of dry runs, in a thread of its own (its relayed input and fault injection are test hooks). */
  virtualLab: VirtualLabConnection;
  connections: LabStatusSource;
  /** The Setup view's calibration wizard, on whichever lab the run controller uses now. */
  calibration: CalibrationWizard;
  /** The Setup view's recovery from a protective stop, on the robot of that same lab. */
  recovery: RobotRecovery;
  /** The Setup view's Connect, Disconnect and first setup, on the configured real lab. */
  labControl: LabControl;
  /** The checklist's "Restart control program", on the lab whose checklist is shown. */
  programRestart: ProgramRestarter;
  whatIf: WhatIfPlannerFactory;
  /** The connected lab's table now, for the table view between runs (null: none connected). */
  tableReading: TableReading;
  /**
   * The scene the lab starts on (the default scene file; its name in the scene library): the
   * console core opens on it, so the table view shows the lab's scene from the start.
   */
  scene: { scene: Scene; file: string };
  /** Aborts any run and closes every connection and the virtual lab. */
  close(): Promise<void>;
}

export function createConsoleLab(o: ConsoleLabOptions): ConsoleLab {
  // The console's run owner: its runs' status, clock, abort, pause and log, and the fine workers
  // that stay warm across runs (and serve what-if).
  const owner = new RunOwner({
    ...(o.workers !== undefined ? { workers: o.workers } : {}),
    ...(o.spawn ? { spawn: o.spawn } : {}),
  });
  const virtualLab = new VirtualLabConnection(o.lab.kind === 'virtual' ? { multicast: o.lab.multicast } : {});
  // The lab's thread ending takes its servers with it: the operator hears why the dry run stopped.
  const offLabError = virtualLab.onError((err) => o.report(`the virtual lab stopped: ${err.message}`));
  const realLab = o.lab.kind === 'real' ? realLabConnection(o.lab) : null;
  const runController = new LabRunController({
    virtualLab,
    realLab,
    tasksDir: o.tasksDir,
    owner,
  });
  const connections = new LabStatusSource(runController);
  const scene = loadSceneFile(o.defaultSceneFile);
  if (!realLab) {
    virtualLab.linkFor(scene).then(
      () => o.report(`connected to the ${virtualLab.description}`),
      (err: Error) => o.report(`the virtual lab did not start: ${err.message}`),
    );
  } else {
    o.report(`real runs go to the ${realLab.description} (Setup view: Connect); dry runs to the virtual lab`);
  }
  return {
    runController,
    virtualLab,
    connections,
    calibration: new CalibrationWizard({ session: () => runController.currentConnection() }),
    recovery: new RobotRecovery({
      // The robot in the protective stop, the real lab's first: not simply the last run's lab.
      session: () => recoveryTarget([realLab, virtualLab]),
      runInProgress: () => runController.runInProgress(),
    }),
    labControl: new LabControl({
      realLab,
      connect: (scene, settings) => runController.connect(scene, settings),
      disconnect: () => runController.disconnect(),
    }),
    programRestart: new ProgramRestarter({
      // The lab whose checklist the Setup view shows (LabStatusSource reads the same one).
      session: () => runController.currentConnection(),
      runInProgress: () => runController.runInProgress(),
    }),
    whatIf: whatIfPlanners({
      tasksDir: o.tasksDir,
      workers: owner.workers,
      pool: () => runController.finePool(),
    }),
    tableReading: () => {
      const link = runController.currentConnection().current();
      return link ? tableReading(link) : null;
    },
    scene: { scene, file: path.basename(o.defaultSceneFile) },
    close: async () => {
      connections.dispose();
      offLabError();
      await runController.close();
      await Promise.all([virtualLab.close(), realLab?.close()]);
    },
  };
}
