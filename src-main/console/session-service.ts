/**
 * The console's sessions: it opens and closes the log of every run the console starts (one MCAP
 * log per run, src-main/run/run-recorder.ts, fed by the run's owner: every event the console
 * publishes during the run, and the lab's streams through the run itself), names the logs cut short
 * or damaged when the console starts and recovers one when the operator confirms it (never unasked:
 * recovery rewrites the file), lists the sessions folder, opens a log for playback (the recorded console events go out
 * again as events, never to the robot) and re-plans logged steps for what-if comparisons.
 */
import { loggedPredictionError } from '../session/prediction-error-log';
import path from 'node:path';
import { type PlannerStep } from '#contract/planner-events';
import type { CommandResult, ConsoleCommand, ConsoleEvent, PlaybackStatusInfo } from '#contract/console-api';
import type { PlannerSettings } from '#contract/planner-settings';
import type { Scene } from '#contract/scene';
import { loadRecordedRun, Playback, plannerSteps, type RecordedRun } from '../session/playback';
import { RunRecorder } from '../run/run-recorder';
import { listSessions, SessionLog } from '../session/reader';
import type { MessageTap } from '../session/recorder';
import { describeLoss } from '../session/finalize';
import { recoverSessionFile } from '../session/recovery';
import { replanStep, WHAT_IF_UNAVAILABLE, type WhatIfPlannerFactory } from '../session/what-if';

type SessionCommand = Extract<ConsoleCommand, { type: `sessions.${string}` | `playback.${string}` }>;

export interface SessionServiceOptions {
  /** The sessions folder; null turns recording and the Sessions view off. */
  dir: string | null;
  whatIf?: WhatIfPlannerFactory;
  publish(event: ConsoleEvent): void;
  log(level: 'info' | 'warn' | 'error', message: string): void;
  runActive(): boolean;
  /** Also told every message a run's log gets (the live Foxglove view, session/foxglove-live.ts). */
  liveTap?: MessageTap;
}

export class SessionService {
  private recorder: RunRecorder | null = null;
  private open: { file: string; run: RecordedRun; steps: PlannerStep[]; playback: Playback } | null = null;

  constructor(private readonly o: SessionServiceOptions) {}

  /** Names the logs that need recovery (the console's startup step); changes none of them. */
  async reportLogsNeedingRecovery(): Promise<void> {
    if (!this.o.dir) return;
    const names = (await listSessions(this.o.dir))
      .filter((s) => s.state === 'needs-recovery')
      .map((s) => s.file);
    if (names.length > 0)
      this.o.log(
        'warn',
        `${names.length} session log${names.length === 1 ? ' needs' : 's need'} recovery (${names.join(', ')}): ` +
          'Sessions view, Recover; nothing is changed until you confirm',
      );
  }

  /**
   * Starts the log of a run and returns its recorder (for the run's owner, which feeds it); a log
   * that cannot be opened is reported, and the run goes on without one (null).
   */
  async startRecording(
    mode: 'dry' | 'real',
    scene: Scene,
    settings: PlannerSettings,
    /** Ends the log's name (default: the mode): an identification run's is `probe`. */
    label?: string,
  ): Promise<RunRecorder | null> {
    // A run replaces any playback on screen.
    this.closePlayback();
    if (!this.o.dir) return null;
    await this.stopRecording();
    try {
      this.recorder = await RunRecorder.start({
        dir: this.o.dir,
        origin: 'console',
        mode,
        ...(label ? { label } : {}),
        scene,
        settings,
        onError: (err) => this.o.log('error', `session log: ${err.message}`),
        ...(this.o.liveTap ? { tap: this.o.liveTap } : {}),
      });
      this.o.log('info', `recording ${this.recorder.file}`);
    } catch (err) {
      this.o.log('error', `no session log for this run: ${(err as Error).message}`);
    }
    return this.recorder;
  }

  /** The sessions folder; null when none is configured. */
  get dir(): string | null {
    return this.o.dir;
  }

  /** A recording is open for playback: the table view shows it, not the lab. */
  get playbackOpen(): boolean {
    return this.open !== null;
  }

  /** The run has reported its last event: its log ends now (its outcome, then the indexed file). */
  runEnded(): Promise<void> {
    return this.stopRecording();
  }

  private async stopRecording(): Promise<void> {
    const rec = this.recorder;
    this.recorder = null;
    if (!rec) return;
    try {
      const s = await rec.close();
      this.o.log('info', `session log ${path.basename(rec.file)}: ${s.outcome}, ${s.duration.toFixed(1)} s`);
    } catch (err) {
      this.o.log('error', `session log ${rec.file} not finalized: ${(err as Error).message}`);
    }
  }

  async handle(command: SessionCommand): Promise<CommandResult<SessionCommand['type']>> {
    const dir = this.o.dir;
    if (!dir) throw new Error('no sessions folder is configured');
    switch (command.type) {
      case 'sessions.list':
        return { folder: dir, sessions: await listSessions(dir) };
      case 'sessions.open':
        return this.openSession(path.join(dir, command.file), command.file);
      case 'sessions.recover':
        return this.recover(path.join(dir, command.file), command.confirm);
      case 'playback.play':
        this.refuseDuringRun('play back a session');
        return { playback: this.withFile(this.current().playback.play()) };
      case 'playback.pause':
        return { playback: this.withFile(this.current().playback.pause()) };
      case 'playback.seek':
        return { playback: this.withFile(this.current().playback.seek(command.position)) };
      case 'playback.speed':
        return { playback: this.withFile(this.current().playback.setSpeed(command.speed)) };
      case 'playback.close':
        this.closePlayback();
        return {};
      case 'sessions.whatif':
        return this.whatIf(command.step, command.settings);
    }
  }

  async dispose(): Promise<void> {
    this.closePlayback();
    await this.stopRecording();
  }

  private async openSession(file: string, name: string) {
    this.refuseDuringRun('open a session');
    const log = await SessionLog.open(file);
    let run: RecordedRun;
    let summary;
    let predictionError;
    try {
      summary = await log.summary();
      run = await loadRecordedRun(log);
      predictionError = await loggedPredictionError(log);
    } finally {
      await log.close();
    }
    this.closePlayback();
    // The recorded scene goes to the view with the session (sessions.open's result), never into
    // the console's live scene: watching a recording must not change what the next run plans with.
    const playback = new Playback(run, this.o.publish, (s) =>
      this.o.publish({ type: 'playback', status: { file: name, ...s } }),
    );
    this.open = { file: name, run, steps: plannerSteps(run), playback };
    const status = playback.seek(0);
    return {
      summary,
      steps: this.open.steps.length,
      scene: run.scene,
      playback: { file: name, ...status },
      predictionError,
    };
  }

  private async recover(file: string, confirm: boolean) {
    if (!confirm) throw new Error('recovery rewrites the log: it needs the operator to confirm it');
    this.refuseDuringRun('recover a session log');
    const r = await recoverSessionFile(file);
    const name = path.basename(file);
    switch (r.action) {
      case 'already-complete':
        throw new Error(`${name} is already a complete log: nothing to recover`);
      case 'still-recording':
        throw new Error(`${name} is still being recorded by a running process: not touched`);
      case 'failed':
        throw new Error(`could not recover ${name}: ${r.problem}`);
      case 'recovered': {
        const lost = describeLoss(r.lost);
        const kept = r.damagedCopy ? `; the original is kept as ${path.basename(r.damagedCopy)}` : '';
        this.o.log('warn', `recovered ${name}: ${r.messages} messages, ${lost}${kept}`);
        return {
          summary: r.summary,
          messages: r.messages,
          lost,
          damagedCopy: r.damagedCopy && path.basename(r.damagedCopy),
        };
      }
    }
  }

  private async whatIf(step: number, settings: PlannerSettings) {
    const open = this.current();
    const original = open.steps[step];
    if (!original)
      throw new Error(`the session has ${open.steps.length} planner steps; there is no step ${step}`);
    if (!open.run.scene) throw new Error('the session log has no scene to plan in');
    if (!this.o.whatIf) throw new Error(WHAT_IF_UNAVAILABLE);
    const r = await replanStep(this.o.whatIf, open.run.scene, original, settings);
    return { original: r.original, replanned: r.replanned };
  }

  private closePlayback(): void {
    if (!this.open) return;
    this.open.playback.dispose();
    this.open = null;
    this.o.publish({ type: 'playback', status: null });
  }

  private current() {
    if (!this.open) throw new Error('no session is open: open one from the Sessions view first');
    return this.open;
  }

  private withFile(s: Omit<PlaybackStatusInfo, 'file'>): PlaybackStatusInfo {
    return { file: this.current().file, ...s };
  }

  private refuseDuringRun(what: string): void {
    if (this.o.runActive()) throw new Error(`cannot ${what} while a run is in progress`);
  }
}
