/**
 * Logs of every kind of run, read as Foxglove and Lichtblick read them (foxglove-conformance.ts):
 * a console dry run, a lab run on the virtual lab, `parapush run` from the command line, an
 * experiment recorded with --sessions and a gripper run. In each, every embedded schema keeps
 * Foxglove's JSON Schema rules, every message of every channel validates with ajv against its
 * embedded schema, and every foxglove.* message against the official @foxglove/schemas. The runs
 * are short; how each ends (on a loaded machine the supervisor may stop one for stale motion
 * capture) does not matter here, only what its log holds.
 */
import { execFile } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/scenes';
import { tempDirsPerFile } from '../helpers/temp-dirs';
import { recordedTinyExperiment } from '../helpers/tiny-experiment';
import {
  quickGraspTask,
  quickLabTask,
  recordedRunOnLab,
  startLabAndLink,
  startVirtualLab,
} from '../helpers/virtual-lab';
import { consoleDryRun } from './console-dry-run';
import { checkLogConformance } from './foxglove-conformance';

const tempDir = tempDirsPerFile('parapush-foxglove-logs-');

/** The one log in `dir`, checked; `filled` topics must hold messages. */
async function expectConformingLog(dir: string, filled: string[]): Promise<void> {
  const files = readdirSync(dir).filter((f) => f.endsWith('.mcap'));
  expect(files).toHaveLength(1);
  const { problems, counts } = await checkLogConformance(path.join(dir, files[0]!));
  expect(problems).toEqual([]);
  for (const topic of filled) expect(counts.get(topic) ?? 0, topic).toBeGreaterThan(0);
}

/** What every run with a lab records, however far it got. */
const LAB_RUN = [
  '/session/info',
  '/session/settings',
  '/session/lab',
  '/mocap/frame',
  '/mocap/poses',
  '/robot/state',
  '/scene/state',
  '/foxglove/tf',
  '/foxglove/scene/table',
  '/foxglove/scene/objects',
  '/foxglove/log',
  '/run/status',
  '/run/outcome',
];

describe('logs of every kind of run, as Foxglove reads them', () => {
  it('a console dry run', async () => {
    const dir = tempDir();
    await consoleDryRun({ sessionsDir: dir });
    await expectConformingLog(dir, [...LAB_RUN, '/operator/action']);
  }, 240_000);

  it('a lab run on the virtual lab (a supervised run with its recorder)', async () => {
    const dir = tempDir();
    const env = await startLabAndLink();
    try {
      await recordedRunOnLab(env, quickLabTask(2), dir);
    } finally {
      await env.close();
    }
    await expectConformingLog(dir, LAB_RUN);
  }, 180_000);

  it('parapush run from the command line, against the virtual lab', async () => {
    const dir = tempDir();
    const scene = path.join(repoRoot, 'test/fixtures/lab-short-scene.json');
    const lab = await startVirtualLab({ scene });
    try {
      const setup = lab.writeSetup(path.join(dir, 'setup.json'));
      const taskFile = path.join(dir, 'task.json');
      writeFileSync(taskFile, JSON.stringify({ ...quickLabTask(2), scene }));
      const p = lab.ports;
      const sessions = path.join(dir, 'sessions');
      // prettier-ignore
      const args = [
        'run', '--robot', '127.0.0.1', '--mocap', '127.0.0.1', '--task', taskFile, '--model', 'coarse',
        '--setup', setup, '--workers', '1', '--rtde-port', String(p.rtde), '--dashboard-port',
        String(p.dashboard), '--script-port', String(p.secondary), '--gripper-port', String(p.gripper),
        '--natnet-port', String(p.natnetCommand), '--json',
      ];
      const run = await promisify(execFile)(
        process.execPath,
        [path.join(repoRoot, 'bin/parapush.mjs'), ...args],
        {
          env: { ...process.env, PARAPUSH_SESSIONS_DIR: sessions },
          timeout: 150_000,
        },
      ).catch((err: { stdout: string; stderr: string; code: number }) => err);
      expect(run.stdout, run.stderr).toMatch(/"log":/);
      await expectConformingLog(sessions, LAB_RUN);
    } finally {
      await lab.stop();
    }
  }, 180_000);

  it('an experiment recorded with --sessions (no lab)', async () => {
    const sessions = await recordedTinyExperiment(tempDir());
    await expectConformingLog(sessions, [
      '/session/info',
      '/session/settings',
      '/scene/state',
      '/planner/step',
      '/foxglove/scene/plan',
      '/run/outcome',
    ]);
  }, 180_000);

  it('a gripper run on the virtual lab', async () => {
    const dir = tempDir();
    const env = await startLabAndLink({ scene: path.join(repoRoot, 'test/fixtures/lab-gripper-scene.json') });
    try {
      await recordedRunOnLab(env, quickGraspTask(2), dir, { kind: 'fine' });
    } finally {
      await env.close();
    }
    await expectConformingLog(dir, LAB_RUN);
  }, 180_000);
});
