/**
 * The configured real lab between runs, as the Setup view drives it: Connect and Disconnect
 * (independent of runs, so the checklist, the calibration wizard and jogging work before the first
 * run), and a first setup written from a template when the lab has none. Refused while a run holds
 * the lab. Without a configured real lab every action says how to configure one.
 */
import { existsSync } from 'node:fs';
import type { LabConnectionInfo, SetupTemplate } from '#contract/lab-setup';
import type { PlannerSettings } from '#contract/planner-settings';
import type { Scene } from '#contract/scene';
import { loadSetup } from '../calibration/setup-file';
import { writeSetupFromTemplate } from '../calibration/setup-template';
import type { LabConnection } from '../lab-link/lab-connection';
import { NO_REAL_LAB } from './run-controller';

export interface LabControlOptions {
  /** The configured real lab; null when none is configured. */
  realLab: LabConnection | null;
  connect(scene: Scene, settings: PlannerSettings): Promise<void>;
  disconnect(): Promise<void>;
}

export class LabControl {
  constructor(private readonly o: LabControlOptions) {}

  info(): LabConnectionInfo {
    const lab = this.o.realLab;
    if (!lab)
      return {
        configured: false,
        description: null,
        connected: false,
        setupFile: null,
        setupExists: false,
        notCalibrated: [],
        notice: null,
        mocapInterface: null,
      };
    const link = lab.current();
    const file = lab.setupFile;
    const exists = file !== null && existsSync(file);
    return {
      configured: true,
      description: lab.description,
      connected: link !== null,
      setupFile: file,
      setupExists: exists,
      notCalibrated: [...((link?.setup ?? (exists ? readable(file) : null))?.notCalibrated ?? [])],
      notice: lab.notice,
      mocapInterface: link?.mocapInterface?.text ?? null,
    };
  }

  async connect(scene: Scene | null, settings: PlannerSettings): Promise<LabConnectionInfo> {
    if (!this.o.realLab) throw new Error(NO_REAL_LAB);
    if (!scene) throw new Error('load a scene first: the lab is opened on the scene it will run');
    await this.o.connect(scene, settings);
    return this.info();
  }

  async disconnect(): Promise<LabConnectionInfo> {
    if (!this.o.realLab) throw new Error(NO_REAL_LAB);
    await this.o.disconnect();
    return this.info();
  }

  /** Writes the lab's first setup from the template (refused when it has one). */
  createSetup(template: SetupTemplate): { info: LabConnectionInfo; file: string } {
    const lab = this.o.realLab;
    if (!lab) throw new Error(NO_REAL_LAB);
    if (!lab.setupFile) throw new Error(`the ${lab.description} has no setup file to write`);
    const file = writeSetupFromTemplate(lab.setupFile, template);
    return { info: this.info(), file };
  }
}

/** The setup in `file`, or null when it does not load (Connect then says why). */
function readable(file: string) {
  try {
    return loadSetup(file);
  } catch {
    return null;
  }
}
