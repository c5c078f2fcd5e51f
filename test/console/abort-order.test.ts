/**
 * The abort in the console core, with a run controller that reports its stop on the abort's own
 * call stack (as the lab controller does through the supervisor): the controller hears of the
 * abort before anything is published, the event log still reads request, then stop; a run that
 * ends keeps its run time; and the run's log closes after its last event, not before.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConsoleCore } from '../../src-main/console/console-core';
import type { RunController, RunSink } from '../../src-main/console/run-controller';
import type { ConsoleEvent } from '#contract/console-api';
import { SessionLog, type LoggedMessage } from '../../src-main/session/reader';
import { repoRoot } from '../helpers/scenes';

const dir = mkdtempSync(path.join(os.tmpdir(), 'parapush-abort-order-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs until aborted; reports the stop at once and its end a while later (winding down). */
class StoppableRun implements RunController {
  sink: RunSink | undefined;
  order: string[] = [];
  async start(_r: unknown, sink: RunSink): Promise<void> {
    this.sink = sink;
    sink.status({ event: { type: 'run-started' }, safety: 'safe', armed: true, elapsed: 0.1 });
  }
  async arm(): Promise<void> {}
  async pause(): Promise<void> {}
  async resume(): Promise<void> {}
  abort(): void {
    const sink = this.sink!;
    this.order.push('controller');
    sink.emit({ type: 'supervisor', time: 0.4, decision: 'stop', reason: 'Aborted by operator' });
    sink.status({
      event: { type: 'abort', reason: 'Aborted by operator' },
      safety: 'stopped',
      armed: false,
    });
    // The plan under way finishes, then the run says how it ended: its last event.
    setTimeout(() => {
      sink.emit({
        type: 'log',
        at: Date.now() / 1000,
        level: 'warn',
        source: 'run',
        message: 'run aborted after 1 action(s): Aborted by operator',
      });
      sink.status({ event: { type: 'end', outcome: 'aborted', reason: 'Aborted by operator' } });
      sink.ended();
    }, 700);
  }
}

describe('abort in the console core', () => {
  it('stops first, logs request before stop, keeps the run time, and logs the end', async () => {
    const controller = new StoppableRun();
    const core = new ConsoleCore({
      scenesDir: path.join(repoRoot, 'resources/scenes'),
      runController: controller,
      sessionsDir: dir,
    });
    const events: ConsoleEvent[] = [];
    core.subscribe((e) => {
      controller.order.push('event');
      events.push(e);
    });
    await core.handle({ type: 'scene.load', file: 'isrr-obstacle.json' });
    await core.handle({ type: 'run.start', mode: 'dry' });
    await new Promise((r) => setTimeout(r, 50));
    controller.order.length = 0;
    events.length = 0;
    await core.handle({ type: 'run.abort', source: 'escape-key' });

    expect(controller.order[0]).toBe('controller');
    const words = events.map((e) =>
      e.type === 'log' ? e.message : e.type === 'supervisor' ? `${e.decision}: ${e.reason}` : e.type,
    );
    expect(words.slice(0, 3)).toEqual([
      'Abort requested by operator (Esc key)',
      'stop: Aborted by operator',
      'run',
    ]);
    // The controller gave no run time: the core keeps the time since the start, not 0.
    const aborted = events.find((e) => e.type === 'run');
    expect(aborted?.type === 'run' && aborted.status.elapsed).toBeGreaterThan(0.04);

    await new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (!events.some((e) => e.type === 'log' && /^session log /.test(e.message))) return;
        clearInterval(check);
        resolve();
      }, 10);
    });
    core.dispose();

    const log = await SessionLog.open(
      path.join(
        dir,
        readdirSync(dir).find((f) => f.endsWith('.mcap'))!,
      ),
    );
    const messages: LoggedMessage[] = [];
    for await (const m of log.messages(['/console/log', '/run/outcome', '/operator/action']))
      messages.push(m);
    await log.close();
    const lines = messages.flatMap((m) =>
      m.topic === '/console/log' ? [(m.message as { event: { message: string } }).event.message] : [],
    );
    expect(lines).toContain('Abort requested by operator (Esc key)');
    // Well after the stop (700 ms), the run's last words are in the file, and its outcome after them.
    expect(lines.at(-1)).toBe('run aborted after 1 action(s): Aborted by operator');
    expect(messages.at(-1)).toMatchObject({ topic: '/run/outcome', message: { outcome: 'aborted' } });
    expect(messages.filter((m) => m.topic === '/operator/action').map((m) => m.message)).toEqual([
      expect.objectContaining({ action: 'run.start' }),
      expect.objectContaining({ action: 'run.abort', detail: 'Esc key' }),
    ]);
  });
});
