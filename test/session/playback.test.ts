import { mkdtempSync, rmSync } from 'node:fs';
import { type Plan, type Planner } from '../../src-main/planning/planner';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsoleEvent } from '#contract/console-api';
import {
  loadRecordedRun,
  Playback,
  plannerSteps,
  type PlaybackClock,
  type PlaybackStatus,
  type RecordedRun,
} from '../../src-main/session/playback';
import { SessionLog } from '../../src-main/session/reader';
import { SessionRecorder } from '../../src-main/session/recorder';
import { replanStep } from '../../src-main/session/what-if';
import { plannerStep, runStatus, sampleScene, sampleSettings, stateEvent } from './sample-messages';

/** A clock the test advances by hand; timers fire in due order. */
class ManualClock implements PlaybackClock {
  t = 0;
  private timers = new Map<number, { due: number; fn: () => void }>();
  private id = 0;
  now = () => this.t;
  setTimer = (fn: () => void, seconds: number) => {
    this.timers.set(++this.id, { due: this.t + seconds, fn });
    return this.id;
  };
  clearTimer = (h: unknown) => void this.timers.delete(h as number);
  advance(seconds: number): void {
    const end = this.t + seconds;
    for (;;) {
      const next = [...this.timers.entries()].sort((a, b) => a[1].due - b[1].due)[0];
      if (!next || next[1].due > end) break;
      this.timers.delete(next[0]);
      this.t = next[1].due;
      next[1].fn();
    }
    this.t = end;
  }
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'parapush-playback-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What the live view saw during the recorded run, in order. */
const live: ConsoleEvent[] = [];
let run: RecordedRun;

beforeAll(async () => {
  const rec = await SessionRecorder.create({ dir, label: 'dry', origin: 'test' });
  rec.settings('dry', sampleScene, sampleSettings);
  const publish = (e: ConsoleEvent) => {
    live.push(e);
    rec.event(e);
  };
  rec.event({ type: 'run', status: runStatus('running') });
  // A short run: states every 10 ms, a planner step and a supervisor decision in between.
  for (let i = 0; i < 30; i++) {
    publish(stateEvent(i * 0.01));
    if (i === 5) publish({ type: 'planner-step', step: plannerStep(0, 0.05) });
    if (i === 20) publish({ type: 'supervisor', time: 0.2, decision: 'stop', reason: 'Aborted by operator' });
    if (i === 21)
      publish({ type: 'log', at: Date.now() / 1000, level: 'warn', source: 'operator', message: 'abort' });
    await new Promise((r) => setTimeout(r, 10));
  }
  await rec.close();
  const log = await SessionLog.open(rec.file);
  run = await loadRecordedRun(log);
  await log.close();
});

describe('playback', () => {
  it('re-emits exactly the events the live run showed, in order, with their timing scaled', () => {
    expect(run.scene?.name).toBe(sampleScene.name);
    expect(run.events.map((e) => e.event)).toEqual(live);
    const clock = new ManualClock();
    const out: ConsoleEvent[] = [];
    const statuses: PlaybackStatus[] = [];
    const p = new Playback(
      run,
      (e) => out.push(e),
      (s) => statuses.push(s),
      clock,
    );
    p.setSpeed(2);
    p.play();
    // Half the run's log time at 2x is a quarter of it on the clock.
    clock.advance(run.duration / 4);
    const half = run.events.filter((e) => e.t <= run.duration / 2).length;
    expect(out).toHaveLength(half);
    expect(out).toEqual(live.slice(0, half));
    clock.advance(run.duration);
    expect(out).toEqual(live);
    expect(statuses.at(-1)).toMatchObject({ playing: false, ended: true, position: run.duration });
  });

  it('pause stops the events and play resumes where it stopped', () => {
    const clock = new ManualClock();
    const out: ConsoleEvent[] = [];
    const p = new Playback(
      run,
      (e) => out.push(e),
      () => undefined,
      clock,
    );
    p.play();
    clock.advance(0.1);
    const paused = p.pause();
    const n = out.length;
    clock.advance(10);
    expect(out).toHaveLength(n);
    expect(paused.position).toBeCloseTo(0.1, 6);
    p.setSpeed(10);
    p.play();
    clock.advance(1);
    expect(out).toEqual(live);
  });

  it('seek replays what the view shows at that point, then plays on from there', () => {
    const clock = new ManualClock();
    const out: ConsoleEvent[] = [];
    const p = new Playback(
      run,
      (e) => out.push(e),
      () => undefined,
      clock,
    );
    const at = run.events.find((e) => e.event.type === 'supervisor')!.t;
    const s = p.seek(at);
    expect(s).toMatchObject({ seeks: 1, playing: false });
    // The planner step and the supervisor decision before the point are there, in order.
    const types = out.map((e) => e.type);
    expect(types).toContain('planner-step');
    expect(types.at(-1)).toBe('supervisor');
    const lastStateBefore = [...run.events].reverse().find((e) => e.t <= at && e.event.type === 'state')!;
    expect(out.filter((e) => e.type === 'state').at(-1)).toEqual(lastStateBefore.event);
    out.length = 0;
    p.play();
    clock.advance(10);
    expect(out).toEqual(run.events.filter((e) => e.t > at).map((e) => e.event));
  });

  it('refuses speeds outside 0.1x to 10x', () => {
    const p = new Playback(
      run,
      () => undefined,
      () => undefined,
      new ManualClock(),
    );
    expect(() => p.setSpeed(0.05)).toThrow(/between 0.1x and 10x/);
    expect(() => p.setSpeed(11)).toThrow(RangeError);
    expect(p.setSpeed(0.1).speed).toBe(0.1);
  });

  it('what-if re-plans a logged step from its logged state with other settings', async () => {
    const original = plannerSteps(run)[0]!;
    const seen: { x: number[]; iterations: unknown }[] = [];
    const factory = {
      workers: 3,
      async create(_scene: unknown, settings: typeof sampleSettings) {
        const planner: Planner = {
          async plan(ctx): Promise<Plan> {
            seen.push({ x: Array.from(ctx.x), iterations: settings.parareal });
            const x1 = Float64Array.from(ctx.x, (v) => v + 0.01);
            return {
              controls: [[0.05, 0]],
              restTime: 0,
              iterates: [[ctx.x, x1]],
              iterationLabels: [0],
              changes: [],
              costs: [1.5],
              predictionTime: 0.012,
              sequences: 4,
              work: { cpu: 0, steps: 0, solverIterations: 0 },
            };
          },
        };
        return { planner, dispose: () => undefined };
      },
    };
    const other = { ...sampleSettings, parareal: { mode: 'iterations' as const, iterations: 1 } };
    const r = await replanStep(factory, sampleScene, original, other);
    expect(seen).toEqual([{ x: original.start, iterations: { mode: 'iterations', iterations: 1 } }]);
    expect(r.original).toBe(original);
    expect(r.replanned).toMatchObject({
      step: original.step,
      start: original.start,
      plan: [[0.05, 0]],
      costs: [1.5],
    });
    expect(r.replanned.timings).toMatchObject({ workers: 3, prediction: 0.012 });
  });
});
