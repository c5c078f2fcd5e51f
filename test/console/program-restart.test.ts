/**
 * A control program that a stop has ended is restarted visibly, never silently: the checklist's
 * program check offers "Restart control program" (robot.restart-program), whose restart the event
 * log names; a dry run that finds the program stopped restarts it before its pre-flight checks and
 * says so in the log before the checklist; the restart is refused while a run owns the robot. The
 * program is stopped as the pendant's or dashboard's Stop stops it (the dashboard's `stop`).
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsoleEvent, PreflightReportPayload } from '#contract/console-api';
import { VirtualLabConnection } from '../../src-main/lab-link/virtual-lab-connection';
import { ConsoleOnLab, fastDryRun } from '../helpers/console-on-lab';

const session = new VirtualLabConnection({ inProcess: true });
let lab: ConsoleOnLab;

beforeAll(async () => {
  lab = new ConsoleOnLab({ virtualLab: session });
  await lab.command({ type: 'scene.load', file: 'isrr-obstacle.json' });
  await lab.command({ type: 'settings.set', settings: fastDryRun(2) });
  await session.linkFor(lab.core.snapshot().scene!);
}, 60_000);

afterAll(async () => {
  await lab.dispose();
  await session.close();
});

/** The dashboard's `stop` on the lab's dashboard port, as a pendant or a dashboard client sends it. */
async function stopProgram(): Promise<void> {
  const port = session.lab()!.ports.dashboard;
  await new Promise<void>((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (d) => {
      text += d.toString();
      // The greeting, then the answer to `stop`.
      if (text.split('\n').length > 2) {
        socket.end();
        resolve();
      }
    });
    socket.on('error', reject);
    socket.once('connect', () => socket.write('stop\n'));
  });
  await session.current()!.robot.waitForState((s) => s.runtimeState !== 'PLAYING');
}

const programCheck = (r: PreflightReportPayload | null | undefined) =>
  r?.checks.find((c) => c.id === 'program');
const logs = (source: string): Extract<ConsoleEvent, { type: 'log' }>[] =>
  lab.events.filter(
    (e): e is Extract<ConsoleEvent, { type: 'log' }> => e.type === 'log' && e.source === source,
  );

describe('a control program stopped by a previous stop', () => {
  it('is offered to the operator as "Restart control program", and the restart is logged', async () => {
    expect(programCheck(lab.core.snapshot().preflight)).toMatchObject({ ok: true });
    expect(programCheck(lab.core.snapshot().preflight)?.action).toBeUndefined();
    await stopProgram();
    const red = await lab.until('the red program check', () => {
      const c = programCheck(lab.core.snapshot().preflight);
      return c && !c.ok ? c : undefined;
    });
    expect(red).toMatchObject({ ok: false, action: 'restart-program' });
    expect(red.reason).toMatch(/runtime STOPPED/);

    lab.events.length = 0;
    const result = await lab.command({ type: 'robot.restart-program' });
    expect(result).toMatchObject({ restarted: true });
    const logged = logs('robot').at(-1);
    expect(logged?.level).toBe('warn');
    expect(logged?.message).toMatch(/^Control program restarted by the operator \(was runtime STOPPED/);
    await lab.until('the green program check', () => programCheck(lab.core.snapshot().preflight)?.ok);
    expect(programCheck(lab.core.snapshot().preflight)?.action).toBeUndefined();

    // Nothing to restart now: the answer says so, and nothing was sent.
    const again = await lab.command({ type: 'robot.restart-program' });
    expect(again).toMatchObject({ restarted: false, message: expect.stringMatching(/is playing/) });
  }, 60_000);

  it('is restarted by the next run before its checks, in the log, never silently', async () => {
    await stopProgram();
    lab.events.length = 0;
    await lab.command({ type: 'run.start', mode: 'dry' });
    // Refused while the run owns the robot.
    await expect(lab.command({ type: 'robot.restart-program' })).rejects.toThrow(/while a run is/);
    await lab.until(
      'the run to end',
      () => lab.lastRun()?.phase === 'finished' || lab.lastRun()?.reason,
      90_000,
    );
    await lab.until('the run to let go', () => !lab.controller.runInProgress(), 30_000);
    const restartAt = lab.events.findIndex(
      (e) =>
        e.type === 'log' &&
        e.source === 'robot' &&
        /^Control program was not running \(runtime STOPPED.*restarted before the pre-flight checks$/.test(
          e.message,
        ),
    );
    const armedAt = lab.events.findIndex((e) => e.type === 'supervisor' && e.reason.startsWith('Armed'));
    expect(restartAt).toBeGreaterThanOrEqual(0);
    expect(armedAt).toBeGreaterThan(restartAt);
    // The run's checks found the program playing (a red check is logged by source 'preflight'),
    // and the run did not stop for a stopped program.
    expect(logs('preflight').filter((l) => l.message.startsWith('Control program playing'))).toEqual([]);
    // Two actions, then the run ends for its action limit, not for the program.
    expect(lab.lastRun()?.reason).toMatch(/after 2 action|action limit|actions/);
    expect(lab.lastRun()?.reason).not.toMatch(/Control program/);
  }, 120_000);
});
