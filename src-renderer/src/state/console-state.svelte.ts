/**
 * What the console knows, fed only by the core's events and command results. Views read it;
 * nothing here invents data.
 */
import type {
  Connection,
  ConsoleEvent,
  ConsoleSnapshot,
  PlannerStep,
  PreflightReportPayload,
  RunStatus,
} from '../../../src-main/contract/console-api';
import type { PlannerSettings } from '../../../src-main/contract/planner-settings';
import type { Scene } from '../../../src-main/contract/scene';
import type { LinkState } from '../api/client';

export interface LogEntry {
  id: number;
  at: number;
  level: 'info' | 'warn' | 'error';
  source: string;
  message: string;
}

/** One point per planner step for the timing plots. */
export interface StepTiming {
  step: number;
  planning: number;
  controlDuration: number;
  measuredSpeedup: number | null;
  theoreticalSpeedup: number | null;
}

const LOG_LIMIT = 500;
const EXECUTED_PATH_LIMIT = 20_000;

export const idleRun: RunStatus = {
  phase: 'idle',
  mode: null,
  reason: null,
  startedAt: null,
  elapsed: 0,
  safety: 'unknown',
  armed: false,
};

export class ConsoleState {
  scene = $state<Scene | null>(null);
  sceneFile = $state<string | null>(null);
  sceneDirty = $state(false);
  settings = $state<PlannerSettings | null>(null);
  presets = $state<{ name: string; label: string }[]>([]);
  run = $state<RunStatus>(idleRun);
  connections = $state<Connection[]>([]);
  /** The lab's pre-flight checklist now; null while no lab is connected. */
  preflight = $state.raw<PreflightReportPayload | null>(null);
  link = $state<LinkState>({ up: false, detail: 'connecting' });
  log = $state<LogEntry[]>([]);
  /** Latest planner step: plan, per-iteration predictions, costs, timings. */
  plannerStep = $state.raw<PlannerStep | null>(null);
  stepTimings = $state.raw<StepTiming[]>([]);
  /** Latest measured state, and the pusher path executed so far in this run. */
  live = $state.raw<{ time: number; sliderIds: string[]; state: number[] } | null>(null);
  executedPath = $state.raw<[number, number][]>([]);
  private nextLogId = 1;

  applySnapshot(s: ConsoleSnapshot): void {
    this.scene = s.scene;
    this.sceneFile = s.sceneFile;
    this.settings = s.settings;
    this.presets = s.presets;
    this.run = s.run;
    this.connections = s.connections;
    this.preflight = s.preflight;
  }

  apply(event: ConsoleEvent): void {
    switch (event.type) {
      case 'connections':
        this.connections = event.connections;
        break;
      case 'preflight':
        this.preflight = event.report;
        break;
      case 'scene':
        this.scene = event.scene;
        this.sceneFile = event.file;
        this.sceneDirty = event.dirty;
        break;
      case 'settings':
        this.settings = event.settings;
        break;
      case 'run':
        if (event.status.phase === 'starting') this.resetRunData();
        this.run = event.status;
        break;
      case 'state':
        this.live = { time: event.time, sliderIds: event.sliderIds, state: event.state };
        this.executedPath = appendCapped(
          this.executedPath,
          [event.state[0]!, event.state[1]!],
          EXECUTED_PATH_LIMIT,
        );
        break;
      case 'planner-step':
        this.plannerStep = event.step;
        this.stepTimings = [
          ...this.stepTimings,
          {
            step: event.step.step,
            planning: event.step.timings.planning,
            controlDuration: event.step.controlDuration,
            measuredSpeedup: event.step.timings.measuredSpeedup,
            theoreticalSpeedup: event.step.timings.theoreticalSpeedup,
          },
        ];
        break;
      case 'supervisor':
        this.addLog({
          at: Date.now(),
          level: event.decision === 'allow' ? 'info' : 'warn',
          source: 'supervisor',
          message: `${event.decision.toUpperCase()}: ${event.reason}`,
        });
        break;
      case 'log':
        this.addLog(event);
        break;
    }
  }

  addLog(entry: Omit<LogEntry, 'id'>): void {
    const next = [...this.log, { ...entry, id: this.nextLogId++ }];
    this.log = next.length > LOG_LIMIT ? next.slice(next.length - LOG_LIMIT) : next;
  }

  private resetRunData(): void {
    this.plannerStep = null;
    this.stepTimings = [];
    this.live = null;
    this.executedPath = [];
  }
}

function appendCapped<T>(list: T[], item: T, limit: number): T[] {
  const next = list.length >= limit ? list.slice(list.length - limit + 1) : list.slice();
  next.push(item);
  return next;
}
