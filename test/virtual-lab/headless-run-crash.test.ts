/**
 * `parapush run` against `parapush lab`, as two real processes over loopback; the run is killed
 * with SIGKILL mid-run. The session log, after recovery, must be valid and miss at most the last
 * second. (That the arm stops by the controller's own watchdog is tested in test/robot.)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { recoverSessionsDir } from '../../src-main/session/recovery';
import { stampedTopics } from '../../src-main/session/channels';
import { SessionLog } from '../../src-main/session/reader';
import { writeLabConfig } from '../helpers/lab-config';
import { repoRoot } from '../helpers/scenes';
import { wallSeconds } from '#contract/time';

const cli = path.join(repoRoot, 'bin/parapush.mjs');
const children: ChildProcess[] = [];
afterAll(() => children.forEach((c) => c.exitCode === null && c.kill('SIGKILL')));

function start(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(process.execPath, [cli, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return child;
}

function firstLine(stream: NodeJS.ReadableStream, match: RegExp, timeout: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const rl = createInterface({ input: stream });
    const timer = setTimeout(
      () => reject(new Error(`no line matching ${match} within ${timeout} s`)),
      timeout * 1000,
    );
    rl.on('line', (line) => {
      if (match.test(line)) {
        clearTimeout(timer);
        rl.close();
        resolve(line);
      }
    });
  });
}

describe('headless run killed with SIGKILL', () => {
  it('leaves a log that recovers to a valid MCAP missing at most the last second', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'headless-'));
    const config = writeLabConfig(
      path.join(dir, 'lab.json'),
      path.join(repoRoot, 'resources/scenes/isrr-obstacle.json'),
    );
    const setup = path.join(dir, 'setup.json');
    const lab = start(['lab', '--config', config, '--setup-out', setup, '--json'], {});
    const info = JSON.parse(await firstLine(lab.stdout!, /^\{/, 30)) as { ports: Record<string, number> };
    const p = info.ports;
    const sessions = path.join(dir, 'sessions');
    const run = start(
      [
        'run',
        '--robot',
        '127.0.0.1',
        '--mocap',
        '127.0.0.1',
        '--scene',
        path.join(repoRoot, 'resources/scenes/isrr-obstacle.json'),
        '--model',
        'coarse',
        '--setup',
        setup,
        '--workers',
        '1',
        '--rtde-port',
        String(p.rtde),
        '--dashboard-port',
        String(p.dashboard),
        '--script-port',
        String(p.secondary),
        '--gripper-port',
        String(p.gripper),
        '--natnet-port',
        String(p.natnetCommand),
      ],
      { PARAPUSH_SESSIONS_DIR: sessions },
    );
    await firstLine(run.stderr!, /^step 2:/, 60);
    await new Promise((r) => setTimeout(r, 300)); // mid-motion
    const killedAt = wallSeconds();
    run.kill('SIGKILL');
    await new Promise((r) => run.once('exit', r));

    const results = await recoverSessionsDir(sessions);
    expect(results).toEqual([expect.objectContaining({ action: 'recovered' })]);
    const file = path.join(
      sessions,
      readdirSync(sessions).find((f) => f.endsWith('.mcap'))!,
    );
    const log = await SessionLog.open(file);
    let last = 0;
    const seen = new Set<string>();
    for await (const m of log.messages(stampedTopics)) {
      last = Math.max(last, m.message.wall);
      seen.add(m.topic);
    }
    await log.close();
    // Log stamps are wall-clock seconds.
    expect(killedAt - last).toBeGreaterThanOrEqual(0);
    expect(killedAt - last).toBeLessThanOrEqual(1);
    for (const topic of [
      '/session/settings',
      '/mocap/frame',
      '/mocap/poses',
      '/robot/state',
      '/robot/command',
      '/supervisor/decision',
      '/planner/step',
    ]) {
      expect(seen, topic).toContain(topic);
    }
    lab.kill('SIGTERM');
    await new Promise((r) => lab.once('exit', r));
  });
});
