/**
 * The operator's planner settings: kept in memory and, when a file is given, persisted as JSON
 * so the console opens with the last choice. A missing or invalid file falls back to defaults; a
 * file an older console wrote with since-renamed fields is read and rewritten in today's names.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  defaultPlannerSettings,
  plannerSettingsSchema,
  withCurrentSettingsNames,
  type PlannerSettings,
} from '#contract/planner-settings';
import { plannerOf } from '../planning/planners';

/** Settings checked against their schema and their planner against the registry's kinds. */
function checked(settings: unknown): PlannerSettings {
  const parsed = plannerSettingsSchema.parse(settings);
  plannerOf(parsed.planner);
  return parsed;
}

export class SettingsStore {
  private settings: PlannerSettings;
  /** Why the stored file was not used, for the log; null when it was used or absent. */
  readonly loadProblem: string | null = null;

  constructor(private readonly file: string | null) {
    this.settings = defaultPlannerSettings;
    if (file && existsSync(file)) {
      try {
        const stored: unknown = JSON.parse(readFileSync(file, 'utf8'));
        const current = withCurrentSettingsNames(stored);
        this.settings = checked(current);
        if (current !== stored) this.write();
      } catch (err) {
        this.loadProblem = `ignored ${file}: ${(err as Error).message}`;
      }
    }
  }

  get(): PlannerSettings {
    return this.settings;
  }

  set(settings: PlannerSettings): PlannerSettings {
    this.settings = checked(settings);
    this.write();
    return this.settings;
  }

  private write(): void {
    if (!this.file) return;
    mkdirSync(path.dirname(this.file), { recursive: true });
    writeFileSync(this.file, `${JSON.stringify(this.settings, null, 2)}\n`);
  }
}
