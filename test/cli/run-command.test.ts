/**
 * `parapush run`'s own code (src-main/cli/commands/run.ts), in this process against a virtual lab
 * in a thread of its own (as a lab runs on machines of its own: the command's planning on this
 * thread cannot stall its frames): the command loads the task, connects, makes its run owner and
 * recorder, runs, prints its report and sets its exit status. What it does is read from what it
 * leaves: its lines on stderr, its `--json` object on stdout, process.exitCode, and the session log
 * its owner and recorder wrote.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import type { ConsoleEvent } from '#contract/console-api';
import { registerRunCommand } from '../../src-main/cli/commands/run';
import { saveSetup, type SetupInput } from '../../src-main/calibration/setup-file';
import { VirtualLabThread } from '../../src-main/virtual-lab/lab-thread/lab-thread';
import type { LabConfigInput } from '../../src-main/virtual-lab/virtual-lab';
import { SessionLog, type LoggedMessage } from '../../src-main/session/reader';
import { SESSIONS_DIR_ENV } from '../../src-main/session/sessions-dir';
import { repoRoot } from '../helpers/scenes';
import { FREE_LAB_PORTS } from '../helpers/lab-config';
import { labsPerTest } from '../helpers/virtual-lab';

const labs = labsPerTest();
const tmp = mkdtempSync(path.join(os.tmpdir(), 'parapush-run-command-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  process.exitCode = undefined;
});

/** The virtual lab on a scene (default isrr-obstacle) in a thread, closed after the test. */
async function labThread(
  config: Omit<LabConfigInput, 'scene' | 'ports'> = {},
  scene = 'resources/scenes/isrr-obstacle.json',
): Promise<VirtualLabThread> {
  const lab = await VirtualLabThread.start({
    scene: path.join(repoRoot, scene),
    ports: FREE_LAB_PORTS,
    mocap: { multicast: false },
    world: { noiseVariance: 0, seed: 1 },
    ...config,
    robot: { unlockDelay: 0.3, ...config.robot },
  });
  labs.closeAfter(() => lab.stop());
  return lab;
}

/** The console's default task (isrr-obstacle) as a task file of its own, at most `actions` actions. */
function defaultTaskFile(actions: number): string {
  const shipped = path.join(repoRoot, 'resources/tasks/isrr-obstacle.json');
  const json = JSON.parse(readFileSync(shipped, 'utf8')) as {
    scene: string;
    planner: { maxExecutedActions: number };
  };
  json.scene = path.resolve(path.dirname(shipped), json.scene);
  json.planner.maxExecutedActions = actions;
  const file = path.join(tmp, `isrr-obstacle-${actions}.json`);
  writeFileSync(file, JSON.stringify(json));
  return file;
}

interface CommandRun {
  stderr: string[];
  json: Record<string, unknown>;
  exitCode: number | undefined;
  /** The session log the command wrote, as its messages. */
  log: LoggedMessage[];
  logFile: string;
}

/** `parapush run --json` on `lab`, in this process, with its output captured and its log read. */
async function runCommand(
  lab: VirtualLabThread,
  taskFile: string,
  model = 'coarse',
  labSetup: SetupInput = lab.setup,
): Promise<CommandRun> {
  const sessions = mkdtempSync(path.join(tmp, 'sessions-'));
  vi.stubEnv(SESSIONS_DIR_ENV, sessions);
  const setup = saveSetup(path.join(sessions, 'setup.json'), labSetup);
  const stderr: string[] = [];
  const stdout: string[] = [];
  const capture = (into: string[]) => (chunk: string | Uint8Array) => {
    into.push(String(chunk));
    return true;
  };
  vi.spyOn(process.stderr, 'write').mockImplementation(capture(stderr));
  vi.spyOn(process.stdout, 'write').mockImplementation(capture(stdout));
  const program = new Command().exitOverride();
  registerRunCommand(program);
  const p = lab.ports;
  await program.parseAsync(
    [
      'run',
      ...['--robot', '127.0.0.1', '--mocap', '127.0.0.1', '--task', taskFile, '--setup', setup],
      ...['--model', model, '--workers', '1', '--json'],
      ...['--rtde-port', String(p.rtde), '--dashboard-port', String(p.dashboard)],
      ...['--script-port', String(p.secondary), '--gripper-port', String(p.gripper)],
      ...['--natnet-port', String(p.natnetCommand)],
    ],
    { from: 'user' },
  );
  const exitCode = process.exitCode === undefined ? undefined : Number(process.exitCode);
  vi.restoreAllMocks();
  expect(stdout).toHaveLength(1);
  const json = JSON.parse(stdout[0]!) as Record<string, unknown>;
  const files = readdirSync(sessions).filter((f) => f.endsWith('.mcap'));
  expect(files).toHaveLength(1);
  const logFile = path.join(sessions, files[0]!);
  const session = await SessionLog.open(logFile);
  const log: LoggedMessage[] = [];
  try {
    for await (const m of session.messages()) log.push(m);
  } finally {
    await session.close();
  }
  return { stderr: stderr.join('').split('\n'), json, exitCode, log, logFile };
}

/** A quick task on the short lab scene (one straight push to a near goal), at most 20 actions. */
function shortTaskFile(): string {
  const file = path.join(tmp, 'lab-short-task.json');
  writeFileSync(
    file,
    JSON.stringify({
      name: 'lab-short',
      scene: path.join(repoRoot, 'test/fixtures/lab-short-scene.json'),
      costs: [
        { term: 'goal-distance', weight: 100 },
        { term: 'contact', weight: 200 },
      ],
      planner: {
        horizon: 2,
        controlDuration: 1,
        initialSpeed: 0.05,
        optimizer: { rollouts: 4, maxIterations: 1 },
        maxExecutedActions: 20,
      },
      execution: { noise: { kind: 'constant', variance: 0 } },
      sampling: { kind: 'jitter', halfRange: 0.005 },
    }),
  );
  return file;
}

/** The run phases the log's /run/status events went through, each once in a row. */
function phases(log: LoggedMessage[]): string[] {
  const seen: string[] = [];
  for (const m of log) {
    if (m.topic !== '/run/status') continue;
    const e = (m.message as { event: ConsoleEvent }).event;
    if (e.type === 'run' && seen.at(-1) !== e.status.phase) seen.push(e.status.phase);
  }
  return seen;
}

/** The twists the run's supervisor sent the arm, as the log recorded them. */
function twists(log: LoggedMessage[]): LoggedMessage[] {
  return log.filter((m) => m.topic === '/robot/command' && (m.message as { kind: string }).kind === 'twist');
}

describe('parapush run', () => {
  it('runs the default task to its action limit: reports it failed, exits 1, and its log says so', async () => {
    const lab = await labThread();
    const r = await runCommand(lab, defaultTaskFile(1));

    // Its report: the pre-flight checklist, its one step, and how the run ended at each level.
    expect(r.stderr).toContain(`session log: ${r.logFile}`);
    expect(r.stderr).toContain('model: coarse on 1 worker (asked for: coarse)');
    expect(r.stderr.filter((l) => /^ {2}\[ ok \] /.test(l)).length).toBeGreaterThan(0);
    expect(r.stderr.filter((l) => l.startsWith('  [FAIL]'))).toEqual([]);
    // Two checklists, each under a heading that says which: before gripping (the gripper's check
    // LATER), after gripping (every check judged, green).
    const before = r.stderr.indexOf(
      "pre-flight checks before gripping (the gripper's check follows the grip):",
    );
    const after = r.stderr.indexOf('pre-flight checks after gripping (every check must be green to arm):');
    expect(before, r.stderr.join('\n')).toBeGreaterThanOrEqual(0);
    expect(after).toBeGreaterThan(before);
    expect(r.stderr.slice(before, after)).toContainEqual(
      expect.stringMatching(/^ {2}\[LATER\] Pusher held by the gripper: /),
    );
    expect(r.stderr.slice(after)).toContainEqual(
      expect.stringMatching(/^ {2}\[ ok \] Pusher held by the gripper: /),
    );
    expect(
      r.stderr.filter((l) => /^step \d+: u = /.test(l)),
      r.stderr.join('\n'),
    ).toHaveLength(1);
    expect(r.stderr, r.stderr.join('\n')).toContain('run failed: 1 actions executed');
    expect(r.json).toMatchObject({
      outcome: 'failed',
      cause: 'task',
      taskResult: 'action-limit',
      reason: '1 actions executed',
      model: 'coarse',
      actions: 1,
      log: r.logFile,
    });
    expect(r.json.taskTime).toBeGreaterThan(0);
    expect(r.exitCode).toBe(1);

    // Its run owner: one run, started as a real run without a console, its statuses from starting
    // to failed, the outcome recorded once the owner released the run, the log closed complete.
    expect(r.log.find((m) => m.topic === '/session/info')?.message).toMatchObject({ origin: 'headless' });
    expect(r.log.find((m) => m.topic === '/session/settings')?.message).toMatchObject({ mode: 'real' });
    expect(phases(r.log)).toEqual(['starting', 'running', 'failed']);
    expect(r.log.filter((m) => m.topic === '/planner/step')).toHaveLength(1);
    expect(twists(r.log).length).toBeGreaterThan(0);
    const outcome = r.log.filter((m) => m.topic === '/run/outcome');
    expect(outcome.map((m) => m.message)).toEqual([
      expect.objectContaining({ outcome: 'failed', detail: '1 actions executed' }),
    ]);
    expect(r.log.at(-1)?.topic).toBe('/run/outcome');
  });

  it('exits 3 when the run is never armed, and nothing moved; says and logs what auto chose', async () => {
    // An e-Series in Local mode takes no program: the pre-flight check of it stays red.
    const lab = await labThread({ robot: { software: '5.11', remoteControl: false } });
    const r = await runCommand(lab, defaultTaskFile(2), 'auto');
    // auto on one worker: the fine model, said on stderr, in --json and in the log.
    const reason = expect.stringMatching(
      /^auto: fine model \(\d+ sequences on 1 worker\(s\): expected \d+ ms/,
    );
    expect(r.stderr.filter((l) => l.startsWith('model: '))).toEqual([
      expect.stringMatching(/^model: fine on 1 worker, chosen by auto: fine model \(/),
    ]);
    const choice = { requested: 'auto', model: 'fine', workers: 1, reason };
    expect(r.json).toMatchObject({ model: 'fine (auto)', prediction: choice });
    expect(r.log.filter((m) => m.topic === '/run/model').map((m) => m.message)).toEqual([
      expect.objectContaining(choice),
    ]);
    const session = await SessionLog.open(r.logFile);
    try {
      expect(await session.summary()).toMatchObject({ model: 'auto: fine, 1 worker', prediction: choice });
    } finally {
      await session.close();
    }
    expect(r.stderr.filter((l) => l.startsWith('  [FAIL]')).length).toBeGreaterThan(0);
    expect(r.json).toMatchObject({ outcome: 'failed', cause: 'not-armed', taskResult: null, actions: 0 });
    expect(r.stderr).toContain(`run failed: ${String(r.json.reason)}`);
    expect(r.exitCode).toBe(3);
    expect(phases(r.log)).toEqual(['starting', 'failed']);
    expect(r.log.filter((m) => m.topic === '/planner/step')).toHaveLength(0);
    expect(twists(r.log)).toEqual([]);
  });

  // Motive streams each rigid body at its markers, its axes as the world's at its creation
  // (calibration/pivots.ts); the virtual lab's bodies are as untidy by default (pivot-truth.ts).
  it('reaches the goal on a lab whose pivots are off the objects, with the setup holding their offsets', async () => {
    const lab = await labThread({}, 'test/fixtures/lab-short-scene.json');
    const pivots = lab.setup.mocap.pivots!;
    expect(Math.hypot(...pivots.object!.position.slice(0, 2))).toBeGreaterThan(0.01);
    expect(pivots.object!.yaw).toBeGreaterThan(0.2);
    expect(Math.hypot(...pivots.pusher!.position.slice(0, 2))).toBeGreaterThan(0.01);
    const r = await runCommand(lab, shortTaskFile());
    expect(r.stderr).toContainEqual(expect.stringMatching(/^ {2}\[ ok \] Rigid-body pivots measured: /));
    expect(r.json, r.stderr.join('\n')).toMatchObject({ outcome: 'finished' });
    expect(r.exitCode).toBe(0);
  });

  it('refuses to arm on that lab with a setup that ignores the pivots, naming the fix; nothing moves', async () => {
    const lab = await labThread({}, 'test/fixtures/lab-short-scene.json');
    const { pivots: _, ...mocap } = lab.setup.mocap;
    const r = await runCommand(lab, shortTaskFile(), 'coarse', { ...lab.setup, mocap });
    const text = r.stderr.join('\n');
    expect(text).toMatch(
      /\[FAIL\] Rigid-body pivots measured: no pivot offset in the setup for pusher, object/,
    );
    expect(text).toMatch(/measure them in the Setup view's calibration wizard/);
    // The pusher's markers 13 mm off its axis: motion capture and the robot disagree on it too.
    expect(text).toMatch(/\[FAIL\] Motion capture and robot agree on the pusher: 1\d\.\d mm apart/);
    expect(r.json).toMatchObject({ outcome: 'failed', cause: 'not-armed', actions: 0 });
    expect(r.exitCode).toBe(3);
    expect(twists(r.log)).toEqual([]);
  });
});
