/**
 * The operator's planner settings: kept in memory and, when a file is given, persisted as JSON
 * so the console opens with the last choice. A missing or invalid file falls back to defaults.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  defaultPlannerSettings,
  plannerSettingsSchema,
  type PlannerSettings,
} from '#contract/planner-settings';

export class SettingsStore {
  private settings: PlannerSettings;
  /** Why the stored file was not used, for the log; null when it was used or absent. */
  readonly loadProblem: string | null = null;

  constructor(private readonly file: string | null) {
    this.settings = defaultPlannerSettings;
    if (file && existsSync(file)) {
      try {
        this.settings = plannerSettingsSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
      } catch (err) {
        this.loadProblem = `ignored ${file}: ${(err as Error).message}`;
      }
    }
  }

  get(): PlannerSettings {
    return this.settings;
  }

  set(settings: PlannerSettings): PlannerSettings {
    this.settings = plannerSettingsSchema.parse(settings);
    if (this.file) {
      mkdirSync(path.dirname(this.file), { recursive: true });
      writeFileSync(this.file, `${JSON.stringify(this.settings, null, 2)}\n`);
    }
    return this.settings;
  }
}
