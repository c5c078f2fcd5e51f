/**
 * The `parapush` commands that run until interrupted or talk to a lab: `lab`, `mocap serve`,
 * `mocap listen`, `robot recover`, and the bad input of `run` and `web`. Each is started as a user
 * starts it (node bin/parapush.mjs, its own process), its ready line awaited, then talked to and
 * stopped with SIGINT, which must end it cleanly (exit code 0). Bad input exits 2 before anything
 * starts. (A run against `parapush lab` through the CLI: test/virtual-lab/headless-run-crash.test.ts; the
 * console in web mode: test/cli/start.test.ts and test/console/web-command.test.ts.)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bodyOnTable, identityCalibration, type Calibration } from '../../src-main/calibration/mocap-table';
import { loadSetup } from '../../src-main/calibration/setup-file';
import type { Vec3 } from '#contract/geometry';
import type { Quat } from '../../src-main/common/rotation';
import { cli } from '../helpers/cli';
import { writeLabConfig } from '../helpers/lab-config';
import { repoRoot } from '../helpers/scenes';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'parapush-long-'));
const scene = path.join(repoRoot, 'test/fixtures/lab-short-scene.json');
/** Starting a lab or a server on a starved two-core machine can take a while, s. */
const STARTUP = 90;
/** Vitest's test time limits are in ms. */
const STARTUP_LIMIT = STARTUP * 1000;
vi.setConfig({ testTimeout: STARTUP_LIMIT });

/** A `parapush` process that runs until stopped, with its output collected as it comes. */
interface Running {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
}

const started: Running[] = [];
afterAll(() => {
  for (const r of started)
    if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
});

/** A TCP port on 127.0.0.1 that nothing listens on (bound once, then released). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function start(...args: string[]): Running {
  const child = spawn(process.execPath, [path.join(repoRoot, 'bin/parapush.mjs'), ...args], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const r = { child, stdout: () => out, stderr: () => err, exit };
  started.push(r);
  return r;
}

/** The first match of `pattern` in the growing output; fails early if the process ends first. */
async function waitFor(
  r: Running,
  read: () => string,
  pattern: RegExp,
  within = STARTUP,
): Promise<RegExpMatchArray> {
  const until = Date.now() + within * 1000;
  for (;;) {
    const m = read().match(pattern);
    if (m) return m;
    if (r.child.exitCode !== null || Date.now() > until)
      throw new Error(
        `no ${pattern} (exit ${r.child.exitCode}); stdout:\n${r.stdout()}\nstderr:\n${r.stderr()}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** SIGINT, as Ctrl+C: the process must stop by itself, with exit code 0. */
async function interrupt(r: Running): Promise<number | null> {
  r.child.kill('SIGINT');
  return r.exit;
}

/** Exit code 2 and exactly one line on stderr, nothing on stdout. */
function expectBadInput(r: { code: number; stdout: string; stderr: string }, message: string): void {
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr).toBe(`parapush: ${message}\n`);
}

interface ListenFrame {
  frame: number;
  rigidBodies: {
    id: number;
    name: string | null;
    position: Vec3;
    orientation: Quat;
    trackingValid: boolean;
  }[];
}

const frames = (stdout: string): ListenFrame[] =>
  stdout
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as ListenFrame);

/** Each named body's position on the table (m), through the calibration the stream was made with. */
function onTable(frame: ListenFrame, calibration: Calibration): Record<string, Vec3> {
  return Object.fromEntries(
    // Each body's pivot (its markers) carried to its object by the setup's pivot offsets.
    frame.rigidBodies.map((b) => [
      b.name ?? `#${b.id}`,
      bodyOnTable(calibration, b.name ?? '', b.position, b.orientation).position,
    ]),
  );
}

describe('parapush lab, with mocap listen and robot recover against it', () => {
  const setupFile = path.join(tmp, 'setup.json');
  let lab: Running;
  let info: {
    scene: string;
    multicast: boolean;
    setup: string;
    ports: Record<
      'rtde' | 'dashboard' | 'secondary' | 'realtime' | 'gripper' | 'natnetCommand' | 'natnetData',
      number
    >;
  };

  beforeAll(async () => {
    const config = writeLabConfig(path.join(tmp, 'lab.json'), scene, {
      mocap: { rateHz: 60 },
      world: { noiseVariance: 0, seed: 1 },
    });
    lab = start('lab', '--config', config, '--setup-out', setupFile, '--json');
    info = JSON.parse((await waitFor(lab, lab.stdout, /^\{.*\}$/m))[0]) as typeof info;
  }, STARTUP_LIMIT + 10_000);

  it('prints its ports and writes the setup a run loads', () => {
    expect(info).toMatchObject({ scene: 'lab-short', multicast: false, setup: setupFile });
    // Every socket it listens on got a port of its own (unicast NatNet streams from the command
    // socket: no data port).
    const { natnetData, ...listening } = info.ports;
    expect(natnetData).toBe(0);
    const ports = Object.values(listening);
    expect(ports).toHaveLength(6);
    for (const p of ports) expect(p).toBeGreaterThan(0);
    expect(new Set(ports).size).toBe(6);
    const setup = loadSetup(setupFile);
    expect(setup.mocap.residual.rms).toBeLessThanOrEqual(setup.safety.maxCalibrationResidual);
  });

  it(
    'mocap listen prints the requested frames of its NatNet stream, where the scene puts the object',
    async () => {
      const r = await cli(
        'mocap',
        'listen',
        '--command-port',
        String(info.ports.natnetCommand),
        '--count',
        '10',
        '--json',
      );
      expect(r.code).toBe(0);
      // The lab's Motive 3.1 streams a unicast client the 4.1 it announces.
      expect(r.stderr).toMatch(/^connected to .* \(NatNet 4\.1[.\d]*, unicast\)\n/);
      // The count covers every frame received, also those before the names arrived (not printed).
      const received = /\n(\d+) frames, [\d.]+ Hz, \d+ dropped, 0 undecodable/.exec(r.stderr);
      expect(received, r.stderr).not.toBeNull();
      expect(Number(received![1])).toBeGreaterThanOrEqual(10);
      const got = frames(r.stdout);
      expect(got).toHaveLength(10);
      expect(got[1]!.frame).toBeGreaterThan(got[0]!.frame);
      // The names arrive with the model definitions, a few frames after the stream starts.
      const last = got[9]!;
      for (const b of last.rigidBodies) expect(b.trackingValid).toBe(true);
      // Motive's frame is turned and shifted against the table; the setup's calibration undoes that.
      const bodies = onTable(last, loadSetup(setupFile).mocap);
      expect(Object.keys(bodies).sort()).toEqual(['object', 'pusher']);
      expect(bodies.object![0]).toBeCloseTo(-0.1, 3);
      expect(bodies.object![1]).toBeCloseTo(0, 3);
    },
    STARTUP_LIMIT,
  );

  it(
    'robot recover connects, finds no protective stop and does nothing (exit 1)',
    async () => {
      const r = await cli(
        'robot',
        'recover',
        '--robot',
        '127.0.0.1',
        '--rtde-port',
        String(info.ports.rtde),
        '--dashboard-port',
        String(info.ports.dashboard),
        '--script-port',
        String(info.ports.secondary),
        '--confirm',
      );
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        'robot 127.0.0.1: safety mode NORMAL\nthere is no protective stop to recover from: nothing done\n',
      );
    },
    STARTUP_LIMIT,
  );

  it(
    'run against a robot port where nothing listens: exit 1 with one line that says so, no stack trace',
    async () => {
      const closed = await closedPort();
      // A task on the lab's own scene, which fits the setup the lab wrote.
      const isrr = JSON.parse(
        readFileSync(path.join(repoRoot, 'resources/tasks/isrr-obstacle.json'), 'utf8'),
      ) as Record<string, unknown>;
      const taskFile = path.join(tmp, 'lab-short-task.json');
      writeFileSync(
        taskFile,
        JSON.stringify({
          ...isrr,
          name: 'lab-short',
          scene,
          costs: [{ term: 'goal-distance', weight: 100 }],
        }),
      );
      const r = await cli(
        'run',
        '--robot',
        '127.0.0.1',
        '--mocap',
        '127.0.0.1',
        '--task',
        taskFile,
        '--setup',
        setupFile,
        '--rtde-port',
        String(closed),
        '--dashboard-port',
        String(info.ports.dashboard),
        '--script-port',
        String(info.ports.secondary),
        '--gripper-port',
        String(info.ports.gripper),
        '--natnet-port',
        String(info.ports.natnetCommand),
      );
      expect(r.code, r.stderr).toBe(1);
      const errorLines = r.stderr.split('\n').filter((l) => l.startsWith('parapush:'));
      expect(errorLines).toEqual([
        expect.stringMatching(
          new RegExp(`^parapush: RTDE 127\\.0\\.0\\.1:${closed}: .*ECONNREFUSED.*is the robot controller`),
        ),
      ]);
      expect(r.stderr).not.toMatch(/^\s+at /m);
    },
    STARTUP_LIMIT,
  );

  it(
    'stops on Ctrl+C with exit code 0',
    async () => {
      expect(await interrupt(lab)).toBe(0);
    },
    STARTUP_LIMIT,
  );
});

describe('parapush mocap serve, with mocap listen against it', () => {
  it(
    'streams the rigid bodies of a scene until Ctrl+C, then counts what it sent',
    async () => {
      const server = start(
        'mocap',
        'serve',
        '--scene',
        scene,
        '--unicast',
        '--command-port',
        '0',
        '--data-port',
        '0',
        '--rate',
        '50',
        '--up',
        'z',
      );
      const [, port] = await waitFor(
        server,
        server.stderr,
        /virtual NatNet server on 127\.0\.0\.1:(\d+), 50 Hz, rigid bodies pusher#\d+, object#\d+; Ctrl-C stops\n/,
      );
      const r = await cli('mocap', 'listen', '--command-port', port!, '--count', '2', '--json');
      expect(r.code).toBe(0);
      const got = frames(r.stdout);
      expect(got).toHaveLength(2);
      // With no calibration the stream is the table frame itself, z up.
      // Where the scene puts them, to the camera jitter (0.02 mm standard deviation) and no more.
      const bodies = onTable(got[1]!, identityCalibration('z'));
      const within = (v: number, expected: number) => expect(Math.abs(v - expected)).toBeLessThan(2e-4);
      within(bodies.pusher![0], -0.17);
      within(bodies.pusher![1], 0);
      within(bodies.object![0], -0.1);
      within(bodies.object![1], 0);

      expect(await interrupt(server)).toBe(0);
      const sent = /sent (\d+) frames \(0 dropped, 0 corrupted\)\n$/.exec(server.stderr());
      expect(sent).not.toBeNull();
      expect(Number(sent![1])).toBeGreaterThanOrEqual(2);
    },
    2 * STARTUP_LIMIT,
  );
});

describe('bad input of the long-running commands: exit 2 before anything starts', () => {
  const task = path.join(repoRoot, 'resources/tasks/isrr-obstacle.json');
  const badConfig = path.join(tmp, 'bad-lab.json');
  writeFileSync(badConfig, JSON.stringify({ ports: { rtde: 70000 } }));
  const robot = ['--robot', '127.0.0.1', '--mocap', '127.0.0.1'];

  it.each([
    [['lab', '--config', 'no-such-lab.json'], '--config: no such file: no-such-lab.json'],
    [['mocap', 'serve', '--scene', scene, '--rate', '0'], '--rate: expected 0 < Hz <= 1000, got "0"'],
    [['mocap', 'serve', '--scene', scene, '--up', 'x'], '--up: expected y or z, got "x"'],
    [['mocap', 'listen', '--command-port', '70000'], '--command-port: expected a port number, got "70000"'],
    [
      ['robot', 'recover', '--robot', '127.0.0.1'],
      'inspect the cause of the protective stop, clear it, then run again with --confirm',
    ],
    [['run', ...robot], 'give --scene FILE or --task FILE'],
    [
      ['run', ...robot, '--scene', scene],
      'no task file for scene "lab-short" in resources/tasks: give --task FILE',
    ],
    [
      ['run', ...robot, '--task', task, '--planner', 'uampc'],
      '--planner: expected mpc or tampc, got "uampc"',
    ],
    [['run', ...robot, '--task', task, '--model', 'parareal:x'], /^--model: .*"parareal:x"/],
    [
      ['run', ...robot, '--task', task, '--setup', path.join(tmp, 'no-setup.json')],
      `no lab setup at ${path.join(tmp, 'no-setup.json')}: start the virtual lab first (parapush lab, in another terminal; it writes this setup), or give --setup FILE`,
    ],
    [['web', '--port', '65536'], '--port must be 0..65535, not "65536"'],
  ] as [string[], string | RegExp][])('parapush %j', async (args, message) => {
    const r = await cli(...args);
    if (typeof message === 'string') expectBadInput(r, message);
    else {
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(r.stderr.replace(/^parapush: /, '')).toMatch(message);
    }
  });

  it('lab names the field of an invalid config instead of crashing', async () => {
    const r = await cli('lab', '--config', badConfig);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(new RegExp(`^parapush: ${badConfig}: invalid lab config\\n {2}ports\\.rtde: `));
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
