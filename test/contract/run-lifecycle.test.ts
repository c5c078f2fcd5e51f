/**
 * The run lifecycle reducer, exhaustively: every event in every state gives the transition the
 * table below says or the typed rejection it names, never a throw; then whole runs from start to
 * end, and random event sequences that keep the lifecycle's promises.
 */
import fc from 'fast-check';
import { runOutcomeSchema } from '#contract/run-end';
import { describe, expect, it } from 'vitest';
import {
  advanceRun,
  describeRejection,
  endsRun,
  isRunActive,
  outcomeOf,
  phaseOf,
  runPhaseSchema,
  type RunEvent,
  type RunEventType,
  type RunLifecycle,
  type RunRejectionCode,
  type RunState,
} from '#contract/run-lifecycle';

const ABORTED = 'Aborted by operator';
const STALE = 'Motion capture stale: slider not seen for 120 ms';

/** One example of every state (a starting run in both modes: only a real one can be armed). */
const states: Record<RunState, RunLifecycle[]> = {
  idle: [{ state: 'idle' }],
  starting: [
    { state: 'starting', mode: 'dry' },
    { state: 'starting', mode: 'real' },
  ],
  running: [{ state: 'running' }],
  paused: [{ state: 'paused' }],
  stopping: runOutcomeSchema.options.map((outcome) => ({ state: 'stopping', outcome, reason: 'why' })),
  ended: runOutcomeSchema.options.map((outcome) => ({ state: 'ended', outcome, reason: 'why' })),
};

/** One example of every event (every outcome for the run's report of its end). */
const events: Record<RunEventType, RunEvent[]> = {
  start: [
    { type: 'start', mode: 'dry' },
    { type: 'start', mode: 'real' },
  ],
  arm: [{ type: 'arm' }],
  'run-started': [{ type: 'run-started' }],
  pause: [{ type: 'pause' }],
  resume: [{ type: 'resume' }],
  abort: [{ type: 'abort', reason: ABORTED }],
  'safety-stop': [{ type: 'safety-stop', reason: STALE }],
  end: runOutcomeSchema.options.map((outcome) => ({ type: 'end', outcome, reason: `${outcome}!` })),
  released: [{ type: 'released' }],
};

/** What each event does in each state: the next state, or the rejection's code. */
type Expected = ((run: RunLifecycle, event: RunEvent) => RunLifecycle) | RunRejectionCode;
const same = (run: RunLifecycle): RunLifecycle => run;
const starting = (_: RunLifecycle, e: RunEvent): RunLifecycle =>
  e.type === 'start' ? { state: 'starting', mode: e.mode } : fail(e);
const ending = (_: RunLifecycle, e: RunEvent): RunLifecycle =>
  e.type === 'abort'
    ? { state: 'stopping', outcome: 'aborted', reason: e.reason }
    : e.type === 'safety-stop'
      ? { state: 'stopping', outcome: 'failed', reason: e.reason }
      : e.type === 'end'
        ? { state: 'stopping', outcome: e.outcome, reason: e.reason }
        : fail(e);
const fail = (e: RunEvent): never => {
  throw new Error(`no expectation for ${e.type}`);
};

const table: Record<RunState, Record<RunEventType, Expected>> = {
  idle: {
    start: starting,
    arm: 'no-run',
    'run-started': 'no-run',
    pause: 'no-run',
    resume: 'no-run',
    abort: 'no-run',
    'safety-stop': 'no-run',
    end: 'no-run',
    released: 'no-run',
  },
  starting: {
    start: 'run-in-progress',
    arm: same, // a real run only: see below
    'run-started': () => ({ state: 'running' }),
    pause: 'not-running',
    resume: 'not-paused',
    abort: ending,
    'safety-stop': ending,
    end: ending,
    released: 'not-ended',
  },
  running: {
    start: 'run-in-progress',
    arm: 'not-awaiting-arm',
    'run-started': 'already-started',
    pause: () => ({ state: 'paused' }),
    resume: 'not-paused',
    abort: ending,
    'safety-stop': ending,
    end: ending,
    released: 'not-ended',
  },
  paused: {
    start: 'run-in-progress',
    arm: 'not-awaiting-arm',
    'run-started': 'already-started',
    pause: 'not-running',
    resume: () => ({ state: 'running' }),
    abort: ending,
    'safety-stop': ending,
    end: ending,
    released: 'not-ended',
  },
  stopping: {
    start: 'ending',
    arm: 'ending',
    'run-started': 'ending',
    pause: 'ending',
    resume: 'ending',
    abort: 'ending',
    'safety-stop': 'ending',
    end: 'ending',
    released: (run) => ({ ...run, state: 'ended' }) as RunLifecycle,
  },
  ended: {
    start: starting,
    arm: 'no-run',
    'run-started': 'no-run',
    pause: 'no-run',
    resume: 'no-run',
    abort: 'no-run',
    'safety-stop': 'no-run',
    end: 'no-run',
    released: 'no-run',
  },
};

const pairs = (Object.keys(states) as RunState[]).flatMap((s) =>
  states[s].flatMap((run) =>
    (Object.keys(events) as RunEventType[]).flatMap((t) => events[t].map((event) => ({ run, event }))),
  ),
);

/** Runs a sequence of events from idle; every one must be accepted. */
function runThrough(sequence: RunEvent[]): RunLifecycle[] {
  const seen: RunLifecycle[] = [{ state: 'idle' }];
  for (const event of sequence) {
    const t = advanceRun(seen.at(-1)!, event);
    if (!t.ok) throw new Error(`${event.type} rejected: ${t.rejection.code}`);
    seen.push(t.next);
  }
  return seen;
}

describe('run lifecycle: every event in every state', () => {
  it.each(pairs.map((p) => [`${JSON.stringify(p.run)} + ${JSON.stringify(p.event)}`, p]))(
    '%s',
    (_, { run, event }) => {
      let expected = table[run.state][event.type];
      if (event.type === 'arm' && run.state === 'starting' && run.mode === 'dry')
        expected = 'not-awaiting-arm';
      const t = advanceRun(run, event);
      if (typeof expected === 'string') {
        expect(t).toEqual({
          ok: false,
          rejection: { code: expected, event: event.type, phase: phaseOf(run) },
        });
        if (!t.ok) expect(describeRejection(t.rejection)).toMatch(/\S/);
      } else {
        expect(t).toEqual({ ok: true, next: expected(run, event) });
      }
    },
  );

  it('covers every state and every event', () => {
    expect(new Set(pairs.map((p) => p.run.state))).toEqual(new Set(Object.keys(table)));
    expect(new Set(pairs.map((p) => p.event.type))).toEqual(new Set(Object.keys(table.idle)));
  });
});

describe('run lifecycle: phases and predicates', () => {
  it('shows each state as a phase of the console API, a decided end as its outcome', () => {
    const phases = Object.values(states)
      .flat()
      .map((run) => [run.state, phaseOf(run)]);
    expect(phases).toEqual([
      ['idle', 'idle'],
      ['starting', 'starting'],
      ['starting', 'starting'],
      ['running', 'running'],
      ['paused', 'paused'],
      ['stopping', 'finished'],
      ['stopping', 'aborted'],
      ['stopping', 'failed'],
      ['ended', 'finished'],
      ['ended', 'aborted'],
      ['ended', 'failed'],
    ]);
    for (const [, phase] of phases) expect(runPhaseSchema.parse(phase)).toBe(phase);
  });

  it('says a run is active while starting, running or paused, from a state or from a status', () => {
    for (const run of Object.values(states).flat()) {
      const active = ['starting', 'running', 'paused'].includes(run.state);
      expect(isRunActive(run)).toBe(active);
      expect(isRunActive({ phase: phaseOf(run) })).toBe(active);
    }
  });

  it("says which events decide a run's end: the abort, a safety stop and its own end", () => {
    const ending = (Object.keys(events) as RunEventType[]).filter((t) => events[t].every(endsRun));
    expect(ending).toEqual(['abort', 'safety-stop', 'end']);
    for (const t of Object.keys(events) as RunEventType[])
      if (!ending.includes(t)) expect(events[t].some(endsRun)).toBe(false);
  });

  it('reads an outcome from the ended phases only', () => {
    expect(runPhaseSchema.options.map((p) => outcomeOf(p))).toEqual([
      null,
      null,
      null,
      null,
      'aborted',
      'finished',
      'failed',
    ]);
  });

  it("words the operator's refused commands as the console always did", () => {
    const words = (run: RunLifecycle, event: RunEvent): string => {
      const t = advanceRun(run, event);
      return t.ok ? 'accepted' : describeRejection(t.rejection);
    };
    expect(words({ state: 'running' }, { type: 'start', mode: 'dry' })).toBe('a run is already running');
    expect(words({ state: 'starting', mode: 'dry' }, { type: 'arm' })).toBe(
      'there is no real run waiting to be armed',
    );
    expect(words({ state: 'idle' }, { type: 'pause' })).toBe('cannot pause: the run is idle');
    expect(words({ state: 'stopping', outcome: 'aborted', reason: ABORTED }, { type: 'resume' })).toBe(
      'cannot resume: the run is aborted',
    );
  });
});

describe('run lifecycle: whole runs', () => {
  const started: RunEvent[] = [{ type: 'start', mode: 'dry' }, { type: 'run-started' }];

  it('a run that reaches the goal', () => {
    const seen = runThrough([
      ...started,
      { type: 'end', outcome: 'finished', reason: 'Goal reached' },
      { type: 'released' },
    ]);
    expect(seen.map(phaseOf)).toEqual(['idle', 'starting', 'running', 'finished', 'finished']);
    expect(seen.at(-1)).toEqual({ state: 'ended', outcome: 'finished', reason: 'Goal reached' });
  });

  it('a run that fails (an obstacle hit, the action limit) and the next one after it', () => {
    const seen = runThrough([
      ...started,
      { type: 'end', outcome: 'failed', reason: 'object hit obstacle' },
      { type: 'released' },
      { type: 'start', mode: 'real' },
    ]);
    expect(seen.map((s) => s.state)).toEqual([
      'idle',
      'starting',
      'running',
      'stopping',
      'ended',
      'starting',
    ]);
  });

  it('a real run the pre-flight checks refuse to arm fails while starting', () => {
    const seen = runThrough([
      { type: 'start', mode: 'real' },
      { type: 'end', outcome: 'failed', reason: 'pre-flight checks failed' },
      { type: 'released' },
    ]);
    expect(seen.map(phaseOf)).toEqual(['idle', 'starting', 'failed', 'failed']);
  });

  it('an abort while starting (connecting, or waiting for the arm)', () => {
    const seen = runThrough([
      { type: 'start', mode: 'real' },
      { type: 'arm' },
      { type: 'abort', reason: ABORTED },
    ]);
    expect(seen.map(phaseOf)).toEqual(['idle', 'starting', 'starting', 'aborted']);
    // The supervisor's start cannot follow an abort: the abort holds.
    expect(advanceRun(seen.at(-1)!, { type: 'run-started' })).toMatchObject({
      ok: false,
      rejection: { code: 'ending' },
    });
  });

  it('an abort while running, planning or executing alike (one state: asynchronous MPC overlaps them)', () => {
    const seen = runThrough([...started, { type: 'abort', reason: ABORTED }]);
    const stopping = seen.at(-1)!;
    expect(stopping).toEqual({ state: 'stopping', outcome: 'aborted', reason: ABORTED });
    expect(isRunActive(stopping)).toBe(false);
    // The run's late words (its end, a failure while winding down) do not change how it ended.
    for (const late of events.end)
      expect(advanceRun(stopping, late)).toMatchObject({
        ok: false,
        rejection: { code: 'ending', phase: 'aborted' },
      });
    // Nor may the next run start before this one has let go of the lab.
    expect(advanceRun(stopping, { type: 'start', mode: 'dry' })).toMatchObject({
      ok: false,
      rejection: { code: 'ending' },
    });
    expect(advanceRun(stopping, { type: 'released' })).toEqual({
      ok: true,
      next: { state: 'ended', outcome: 'aborted', reason: ABORTED },
    });
  });

  it('an abort while paused', () => {
    const seen = runThrough([
      ...started,
      { type: 'pause' },
      { type: 'abort', reason: ABORTED },
      { type: 'released' },
    ]);
    expect(seen.map(phaseOf)).toEqual(['idle', 'starting', 'running', 'paused', 'aborted', 'aborted']);
  });

  it("a safety stop fails the run at once, with the stop's reason; its later end changes nothing", () => {
    const seen = runThrough([
      ...started,
      { type: 'pause' },
      { type: 'resume' },
      { type: 'safety-stop', reason: STALE },
    ]);
    expect(seen.map(phaseOf)).toEqual(['idle', 'starting', 'running', 'paused', 'running', 'failed']);
    const stopping = seen.at(-1)!;
    expect(stopping).toEqual({ state: 'stopping', outcome: 'failed', reason: STALE });
    expect(isRunActive(stopping)).toBe(false);
    // The run's own report of its end (the MPC loop stopped by the supervisor), and an abort
    // pressed while it winds down, do not change how it ended.
    for (const late of [...events.end, ...events.abort])
      expect(advanceRun(stopping, late)).toMatchObject({
        ok: false,
        rejection: { code: 'ending', phase: 'failed' },
      });
    expect(advanceRun(stopping, { type: 'released' })).toEqual({
      ok: true,
      next: { state: 'ended', outcome: 'failed', reason: STALE },
    });
  });

  it('a safety stop while starting (armed, before the MPC loop) or while paused', () => {
    expect(
      runThrough([
        { type: 'start', mode: 'real' },
        { type: 'arm' },
        { type: 'safety-stop', reason: STALE },
      ]).map(phaseOf),
    ).toEqual(['idle', 'starting', 'starting', 'failed']);
    expect(
      runThrough([
        ...started,
        { type: 'pause' },
        { type: 'safety-stop', reason: STALE },
        { type: 'released' },
      ]).map(phaseOf),
    ).toEqual(['idle', 'starting', 'running', 'paused', 'failed', 'failed']);
  });

  it('an abort holds against a safety stop after it (the first ending holds)', () => {
    const stopping = runThrough([...started, { type: 'abort', reason: ABORTED }]).at(-1)!;
    expect(advanceRun(stopping, { type: 'safety-stop', reason: STALE })).toMatchObject({
      ok: false,
      rejection: { code: 'ending', phase: 'aborted' },
    });
  });
});

describe('run lifecycle: any sequence of events', () => {
  const anyEvent = fc.constantFrom(...Object.values(events).flat());

  it('never throws, and an end once decided holds until the next start', () => {
    fc.assert(
      fc.property(fc.array(anyEvent, { maxLength: 40 }), (sequence) => {
        let run: RunLifecycle = { state: 'idle' };
        for (const event of sequence) {
          const t = advanceRun(run, event);
          if (!t.ok) {
            expect(t.rejection.phase).toBe(phaseOf(run));
            continue;
          }
          if (run.state === 'stopping' || run.state === 'ended') {
            const kept = t.next.state === 'stopping' || t.next.state === 'ended';
            if (kept) expect(phaseOf(t.next)).toBe(phaseOf(run));
            else expect(event.type).toBe('start');
          }
          run = t.next;
        }
      }),
    );
  });
});
