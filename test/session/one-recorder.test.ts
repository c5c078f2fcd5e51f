/**
 * One recorder for every run (issues 15 and 17): a dry run started from the console and a run
 * started as `parapush run` starts one (the run recorder, fed by the run's events and the lab's
 * streams) fill the same channels, every one of them. The console run is aborted with Esc: its
 * log holds the events in causal order (the request, then the stop), ends with the run's last
 * event, and records the real run time on abort.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ConsoleEvent } from '#contract/console-api';
import { topics, type Topic } from '../../src-main/session/channels';
import { SessionLog, type LoggedMessage } from '../../src-main/session/reader';
import { stateVector, type NamedState } from '../../src-main/session/named-state';
import { readRunRecords } from '../../src-main/experiments/run-record';
import { consoleDryRun } from './console-dry-run';
import { tempDirsPerFile } from '../helpers/temp-dirs';
import { recordedTinyExperiment } from '../helpers/tiny-experiment';
import { quickLabTask, recordedRunOnLab, startLabAndLink } from '../helpers/virtual-lab';

const tempDir = tempDirsPerFile('parapush-one-recorder-');

async function readLog(dir: string): Promise<{ messages: LoggedMessage[]; counts: Map<string, number> }> {
  const files = readdirSync(dir).filter((f) => f.endsWith('.mcap'));
  expect(files).toHaveLength(1);
  const log = await SessionLog.open(path.join(dir, files[0]!));
  try {
    const messages: LoggedMessage[] = [];
    for await (const m of log.messages()) messages.push(m);
    return { messages, counts: new Map(log.channelCounts().map((c) => [c.topic, c.messages])) };
  } finally {
    await log.close();
  }
}

/** Topics with at least one message. */
const filled = (counts: Map<string, number>): string[] =>
  [...counts]
    .filter(([, n]) => n > 0)
    .map(([t]) => t)
    .sort();

const all = [...topics].sort();

let consoleCounts: Map<string, number> | undefined;

describe('one recorder for every run', () => {
  it('records a console dry run on every channel; an abort reads request, stop, end', async () => {
    const dir = tempDir();
    await consoleDryRun({ sessionsDir: dir });

    const { messages, counts } = await readLog(dir);
    consoleCounts = counts;
    expect(filled(counts)).toEqual(all);

    const index = (topic: Topic, match: (m: LoggedMessage) => boolean): number =>
      messages.findIndex((m) => m.topic === topic && match(m));
    const event = (m: LoggedMessage) => (m.message as { event: ConsoleEvent }).event;
    const logLine = (re: RegExp) => (m: LoggedMessage) => {
      const e = event(m);
      return e.type === 'log' && re.test(e.message);
    };

    // Causal order: the operator's request, then the stop it caused.
    const request = index('/console/log', logLine(/^Abort requested by operator \(Esc key\)$/));
    const stop = index('/supervisor/event', (m) => {
      const e = event(m);
      return e.type === 'supervisor' && e.decision === 'stop' && e.reason === 'Aborted by operator';
    });
    expect(request).toBeGreaterThanOrEqual(0);
    expect(stop).toBeGreaterThan(request);
    const action = index('/operator/action', (m) => (m.message as { action: string }).action === 'run.abort');
    const decision = index(
      '/supervisor/decision',
      (m) => (m.message as { reason?: { code: string } }).reason?.code === 'operator-abort',
    );
    expect(action).toBeGreaterThanOrEqual(0);
    expect(decision).toBeGreaterThan(action);
    // Foxglove's Log panel reads the same order.
    const foxlog = messages
      .filter((m) => m.topic === '/foxglove/log')
      .map((m) => (m.message as { message: string }).message);
    expect(foxlog.indexOf('STOP: Aborted by operator')).toBeGreaterThan(
      foxlog.indexOf('Abort requested by operator (Esc key)'),
    );

    // The run's last event is in the file, and nothing the run reported comes after it.
    const runEvents = messages.filter((m) =>
      ['/console/log', '/run/status', '/supervisor/event', '/planner/step', '/scene/state'].includes(m.topic),
    );
    const last = runEvents.at(-1)!;
    expect(last.topic).toBe('/run/status');
    const final = event(last);
    expect(final.type === 'run' && final.status).toMatchObject({
      phase: 'aborted',
      reason: 'Aborted by operator',
    });
    const lastLine = runEvents.filter((m) => m.topic === '/console/log').at(-1)!;
    expect(event(lastLine)).toMatchObject({
      message: expect.stringMatching(/^run aborted after \d+ action\(s\)/),
    });
    expect(index('/run/outcome', () => true)).toBeGreaterThan(messages.indexOf(last));
    expect(messages.find((m) => m.topic === '/run/outcome')?.message).toMatchObject({ outcome: 'aborted' });

    // The run time on abort is real, and stays where the run ended.
    const aborted = messages
      .filter((m) => m.topic === '/run/status')
      .map((m) => event(m))
      .flatMap((e) => (e.type === 'run' && e.status.phase === 'aborted' ? [e.status.elapsed] : []));
    expect(aborted.length).toBeGreaterThan(0);
    for (const elapsed of aborted) expect(elapsed).toBeGreaterThan(0.2);
    expect(Math.max(...aborted) - Math.min(...aborted)).toBeLessThan(0.05);
  });

  it('records a run started as `parapush run` on the same channels', async () => {
    const dir = tempDir();
    const env = await startLabAndLink();
    try {
      // Recorded as src-main/cli/commands/run.ts records it.
      const result = await recordedRunOnLab(env, quickLabTask(2), dir);
      expect(result.preflight.ok, result.reason).toBe(true);
    } finally {
      await env.close();
    }
    const { messages, counts } = await readLog(dir);
    expect(filled(counts)).toEqual(all);
    if (consoleCounts) expect(filled(counts)).toEqual(filled(consoleCounts));
    // Its outcome in the same words as a console run's (the last status's phase).
    expect(messages.find((m) => m.topic === '/run/outcome')?.message).toMatchObject({
      outcome: expect.stringMatching(/^(finished|failed)$/),
    });
  });

  it('records an experiment run (no lab) on every channel its events fill, through the same recorder', async () => {
    const out = tempDir();
    const sessions = await recordedTinyExperiment(out);
    const [record] = readRunRecords(out);
    expect(record?.session).toMatch(/^sessions\/.*_coarse_scene-0\.mcap$/);
    const { messages, counts } = await readLog(sessions);
    // The lab's streams, which only a supervised run has (with the Foxglove frames of the lab's
    // setup, rigid bodies and tool); every other channel is filled.
    const labStreams = [
      '/foxglove/tf',
      '/mocap/frame',
      '/mocap/poses',
      '/mocap/stats',
      '/robot/command',
      '/robot/state',
      '/session/lab',
      '/supervisor/decision',
      '/supervisor/event',
    ];
    expect(filled(counts)).toEqual(all.filter((t) => !labStreams.includes(t)));
    if (consoleCounts) {
      for (const t of filled(counts)) expect(filled(consoleCounts)).toContain(t);
    }
    expect(messages.find((m) => m.topic === '/session/info')?.message).toMatchObject({
      origin: 'experiment',
    });
    // The log tells the run the record sums up: its steps, its states, its outcome.
    const steps = messages.filter((m) => m.topic === '/planner/step');
    expect(steps).toHaveLength(record!.summary.actions);
    const states = messages
      .filter((m) => m.topic === '/scene/state')
      .map((m) => stateVector(m.message as NamedState));
    expect(states).toEqual(record!.summary.states);
    const outcome = record!.summary.outcome === 'success' ? 'finished' : 'failed';
    expect(messages.find((m) => m.topic === '/run/outcome')?.message).toMatchObject({ outcome });
  });
});
