/**
 * Playback of a recorded run: the console events the run published (scene state, planner steps,
 * supervisor decisions, log lines) come out again in their recorded order, with their recorded
 * spacing divided by the speed (0.1x to 10x). Play, pause, seek and speed, nothing else: the
 * engine holds no robot, no supervisor and no planner, so playback can never move anything.
 *
 * Seeking replays, at once, what the operator would have on screen at that point: every planner
 * step, supervisor decision and log line before it, and the scene states thinned to one per
 * 20 ms of log time (the executed path), ending with the last state before the point.
 */
import { monotonicSeconds } from '../common/clock';
import { type PlannerStep } from '#contract/planner-events';
import type { ConsoleEvent } from '#contract/console-api';
import type { PlannerSettings } from '#contract/planner-settings';
import type { Scene } from '#contract/scene';
import { consoleEventTopics, type MessageOf } from './channels';
import { plannerStepOf, stateVector } from './named-state';
import type { LoggedMessage, SessionLog } from './reader';
import { after } from '../common/timers';

export const MIN_SPEED = 0.1;
export const MAX_SPEED = 10;
/** While playing, the status (timeline position) is reported at least this often. */
const STATUS_INTERVAL = 0.25;
/** Seeking replays scene states at most this close together (s of log time). */
const SEEK_STATE_SPACING = 0.02;
/** Events due within this much log time count as due now (timer rounding must not spin the loop), s. */
const DUE_EPSILON = 1e-6;

export interface TimedEvent {
  /** Log time since the first message of the session, s. */
  t: number;
  event: ConsoleEvent;
}

export interface RecordedRun {
  events: TimedEvent[];
  /** From the first to the last message of the session, s. */
  duration: number;
  scene: Scene | null;
  settings: PlannerSettings | null;
  mode: 'dry' | 'real' | null;
}

/** Reads what playback needs from a session log. */
export async function loadRecordedRun(log: SessionLog): Promise<RecordedRun> {
  let first: bigint | null = null;
  let last = 0n;
  const events: TimedEvent[] = [];
  let scene: Scene | null = null;
  let settings: PlannerSettings | null = null;
  let mode: RecordedRun['mode'] = null;
  const wanted = new Set<string>(consoleEventTopics);
  for await (const m of log.messages()) {
    first ??= m.logTime;
    if (m.logTime > last) last = m.logTime;
    const t = Number(m.logTime - first) / 1e9;
    if (m.topic === '/session/settings') {
      const s = m.message as { scene: Scene; settings: PlannerSettings; mode: 'dry' | 'real' };
      scene = s.scene;
      settings = s.settings;
      mode = s.mode;
    } else if (wanted.has(m.topic)) {
      events.push({ t, event: consoleEventOf(m) });
    }
  }
  return { events, duration: first === null ? 0 : Number(last - first) / 1e9, scene, settings, mode };
}

/** The console event a logged message holds, exactly as the run published it. */
export function consoleEventOf(m: LoggedMessage): ConsoleEvent {
  switch (m.topic) {
    case '/scene/state': {
      const s = m.message as MessageOf<'/scene/state'>;
      return { type: 'state', time: s.time, sliderIds: s.sliders.map((b) => b.id), state: stateVector(s) };
    }
    case '/planner/step': {
      const { mono: _mono, wall: _wall, ...step } = m.message as MessageOf<'/planner/step'>;
      return { type: 'planner-step', step: plannerStepOf(step) };
    }
    default:
      return (m.message as { event: ConsoleEvent }).event;
  }
}

/** The planner steps of a recorded run, in order. */
export function plannerSteps(run: RecordedRun): PlannerStep[] {
  return run.events.flatMap((e) => (e.event.type === 'planner-step' ? [e.event.step] : []));
}

export interface PlaybackStatus {
  duration: number;
  /** Position on the timeline, s. */
  position: number;
  playing: boolean;
  speed: number;
  ended: boolean;
  /** Counts seeks: the view clears what it drew when this changes, then gets the catch-up events. */
  seeks: number;
}

export interface PlaybackClock {
  /** s, monotonic */
  now(): number;
  /** Runs `fn` once after `seconds`. */
  setTimer(fn: () => void, seconds: number): unknown;
  clearTimer(handle: unknown): void;
}

export const realClock: PlaybackClock = {
  now: monotonicSeconds,
  setTimer: (fn, seconds) => after(seconds, fn),
  clearTimer: (h) => clearTimeout(h as NodeJS.Timeout),
};

export class Playback {
  private next = 0;
  private position = 0;
  private playing = false;
  private speed = 1;
  private seeks = 0;
  private anchor = { clock: 0, position: 0 };
  private timer: unknown = null;
  private lastStatusAt = -Infinity;

  constructor(
    private readonly run: Pick<RecordedRun, 'events' | 'duration'>,
    private readonly emit: (event: ConsoleEvent) => void,
    private readonly onStatus: (status: PlaybackStatus) => void,
    private readonly clock: PlaybackClock = realClock,
  ) {}

  status(): PlaybackStatus {
    return {
      duration: this.run.duration,
      position: this.playing ? this.currentPosition() : this.position,
      playing: this.playing,
      speed: this.speed,
      ended: !this.playing && this.next >= this.run.events.length && this.position >= this.run.duration,
      seeks: this.seeks,
    };
  }

  play(): PlaybackStatus {
    if (!this.playing) {
      if (this.next >= this.run.events.length && this.position >= this.run.duration) this.seek(0);
      this.playing = true;
      this.anchor = { clock: this.clock.now(), position: this.position };
      this.pump();
    }
    return this.report();
  }

  pause(): PlaybackStatus {
    if (this.playing) {
      this.position = this.currentPosition();
      this.playing = false;
      this.cancelTimer();
    }
    return this.report();
  }

  setSpeed(speed: number): PlaybackStatus {
    if (!(speed >= MIN_SPEED && speed <= MAX_SPEED))
      throw new RangeError(`playback speed must be between ${MIN_SPEED}x and ${MAX_SPEED}x, not ${speed}`);
    if (this.playing) {
      this.position = this.currentPosition();
      this.anchor = { clock: this.clock.now(), position: this.position };
    }
    this.speed = speed;
    if (this.playing) this.pump();
    return this.report();
  }

  /** Moves to `position` (s), replaying at once what the view shows at that point. */
  seek(position: number): PlaybackStatus {
    if (!Number.isFinite(position)) throw new RangeError('seek position must be a number of seconds');
    const target = Math.min(Math.max(position, 0), this.run.duration);
    this.cancelTimer();
    this.seeks++;
    this.position = target;
    this.anchor = { clock: this.clock.now(), position: target };
    this.next = 0;
    this.report();
    this.catchUp(target);
    if (this.playing) this.pump();
    return this.report();
  }

  dispose(): void {
    this.playing = false;
    this.cancelTimer();
  }

  private catchUp(target: number): void {
    const events = this.run.events;
    let end = 0;
    while (end < events.length && events[end]!.t <= target) end++;
    let lastState = -1;
    for (let i = end - 1; i >= 0; i--)
      if (events[i]!.event.type === 'state') {
        lastState = i;
        break;
      }
    let lastEmittedState = -Infinity;
    for (let i = 0; i < end; i++) {
      const e = events[i]!;
      if (e.event.type === 'state' && i !== lastState && e.t - lastEmittedState < SEEK_STATE_SPACING)
        continue;
      if (e.event.type === 'state') lastEmittedState = e.t;
      this.emit(e.event);
    }
    this.next = end;
  }

  private currentPosition(): number {
    const p = this.anchor.position + (this.clock.now() - this.anchor.clock) * this.speed;
    return Math.min(p, this.run.duration);
  }

  private pump = (): void => {
    this.cancelTimer();
    if (!this.playing) return;
    const position = this.currentPosition();
    const events = this.run.events;
    while (this.next < events.length && events[this.next]!.t <= position + DUE_EPSILON)
      this.emit(events[this.next++]!.event);
    if (this.next >= events.length && position >= this.run.duration - DUE_EPSILON) {
      this.position = this.run.duration;
      this.playing = false;
      this.report();
      return;
    }
    if (this.clock.now() - this.lastStatusAt >= STATUS_INTERVAL) this.report();
    const due = this.next < events.length ? events[this.next]!.t : this.run.duration;
    const wait = Math.min((due - position) / this.speed, STATUS_INTERVAL);
    this.timer = this.clock.setTimer(this.pump, Math.max(wait, 0));
  };

  private cancelTimer(): void {
    if (this.timer !== null) this.clock.clearTimer(this.timer);
    this.timer = null;
  }

  private report(): PlaybackStatus {
    const s = this.status();
    this.lastStatusAt = this.clock.now();
    this.onStatus(s);
    return s;
  }
}
