/**
 * Every one-shot `parapush` command through bin/parapush.mjs, as a user runs it: its happy path on
 * tiny inputs (the short test scene, one worker, a few controls of half a second) and one bad input,
 * answered with exit code 2 and one line that names the problem. The long-running commands (lab,
 * mocap serve/listen, robot, run, web) are in long-running.test.ts.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { cli } from '../helpers/cli';
import { repoRoot } from '../helpers/scenes';
/** One slider, one straight push to a near goal (test/fixtures/lab-short-scene.json). */
import { shortScene as scene, writeTinyTaskFile } from '../helpers/tiny-task';

/**
 * Each test spawns node and its TypeScript loader: a couple of seconds, but on a shared two-core
 * machine that can stretch to tens; MuJoCo workers and TensorFlow take longer still (SLOW).
 */
vi.setConfig({ testTimeout: 120_000 });
const SLOW = { timeout: 240_000 };

const tmp = mkdtempSync(path.join(os.tmpdir(), 'parapush-commands-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const natnetDir = path.resolve(repoRoot, '../shared/fixtures/natnet');

/** Exit code 2 and exactly one line on stderr, nothing on stdout. */
function expectBadInput(r: { code: number; stdout: string; stderr: string }, message: string | RegExp): void {
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(r.stderr).toMatch(/^parapush: /);
  if (typeof message === 'string') expect(r.stderr).toBe(`parapush: ${message}\n`);
  else expect(r.stderr).toMatch(message);
}

interface StatesJson {
  layout: string[];
  states: number[][];
}

describe('parapush scene schema', () => {
  it('prints the JSON Schema the scene files point at (resources/schemas/scene.schema.json)', async () => {
    const r = await cli('scene', 'schema');
    expect(r.code).toBe(0);
    const printed = JSON.parse(r.stdout) as { properties: Record<string, unknown> };
    const shipped: unknown = JSON.parse(
      readFileSync(path.join(repoRoot, 'resources/schemas/scene.schema.json'), 'utf8'),
    );
    expect(printed).toEqual(shipped);
    expect(Object.keys(printed.properties)).toEqual(
      expect.arrayContaining(['table', 'pusher', 'sliders', 'obstacles', 'goal', 'limits']),
    );
  });

  it('takes no arguments', async () => {
    const r = await cli('scene', 'schema', 'resources/scenes/isrr-obstacle.json');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      "parapush: too many arguments for 'schema'. Expected 0 arguments but got 1.\n(add --help for usage)\n",
    );
  });
});

describe('parapush simulate', () => {
  const controls = '[[0.05,0],[0.05,0]]';
  /** Two 50 mm/s controls of 0.5 s each on the scene, with `model`. */
  const simulate = (model: string, ...more: string[]) =>
    cli('simulate', '--scene', scene, '--controls', controls, '--model', model, '--dt', '0.5', ...more);

  it('coarse: the pusher moves by u*dt and pushes the object straight ahead', async () => {
    const r = await simulate('coarse', '--json');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as StatesJson;
    expect(out.layout.slice(0, 5)).toEqual(['pusher.x', 'pusher.y', 'object.x', 'object.y', 'object.theta']);
    expect(out.states).toHaveLength(3);
    const [x0, , x2] = out.states;
    expect(x0!.slice(0, 5)).toEqual([-0.17, 0, -0.1, 0, 0]);
    expect(x2![0]).toBeCloseTo(-0.12, 12);
    // The pusher's edge is 4.35 mm from the object's: the object moves the rest of the 50 mm, along x.
    const gap = -0.1 - 0.05115 - (-0.17 + 0.0145);
    expect(gap).toBeCloseTo(0.00435, 12);
    expect(x2![2]).toBeCloseTo(-0.1 + 0.05 - gap, 9);
    expect(x2![3]).toBe(0);
  });

  it(
    'fine (MuJoCo): the same push within a millimetre, in the table format',
    async () => {
      const r = await simulate('fine');
      expect(r.code).toBe(0);
      const lines = r.stdout.trimEnd().split('\n');
      expect(lines[0]!.trim().split(/\s+/)).toEqual(['pusher', 'object']);
      expect(lines[1]).toMatch(/^n {2}x \[mm\] {2}y \[mm\] {2}x \[mm\] {2}y \[mm\] {2}theta \[deg\]$/);
      expect(lines).toHaveLength(5);
      const last = lines[4]!.trim().split(/\s+/).map(Number);
      expect(last[0]).toBe(2);
      // Pusher x and object x: the coarse model's -120.0 and -54.35 mm, to MuJoCo's soft contact.
      expect(Math.abs(last[1]! - -120)).toBeLessThan(1);
      expect(Math.abs(last[3]! - -54.35)).toBeLessThan(2);
    },
    SLOW.timeout,
  );

  it('refuses a control faster than the scene allows', async () => {
    const r = await cli('simulate', '--scene', scene, '--controls', '[[0.2,0]]', '--model', 'coarse');
    expectBadInput(r, '--controls[0]: speed 0.2000 m/s exceeds the scene limit 0.1 m/s');
  });
});

describe('parapush predict', () => {
  const args = [
    'predict',
    '--scene',
    scene,
    '--controls',
    '[[0.05,0],[0.05,0.02]]',
    '--dt',
    '0.5',
    '--workers',
    '1',
    '--json',
  ];
  interface PredictJson {
    layout: string[];
    model: string;
    stoppedBy: string;
    iterations: { k: number; states: number[][] }[];
    timing: { workers: number; fineJobs: number };
  }

  it(
    'Parareal with as many iterations as slices ends bit-identical to the fine model',
    async () => {
      const [parareal, fine] = await Promise.all([
        cli(...args, '--model', 'parareal', '--iterations', '2'),
        cli(...args, '--model', 'fine'),
      ]);
      expect(parareal.code).toBe(0);
      expect(fine.code).toBe(0);
      const p = JSON.parse(parareal.stdout) as PredictJson;
      const f = JSON.parse(fine.stdout) as PredictJson;
      expect(p.model).toBe('parareal');
      expect(p.iterations.map((i) => i.k)).toEqual([0, 1, 2]);
      expect(p.timing.workers).toBe(1);
      expect(f.model).toBe('fine');
      expect(f.iterations).toHaveLength(1);
      // Iteration 0 is the coarse model's guess, which the fine model corrects...
      expect(p.iterations[0]!.states.at(-1)).not.toEqual(f.iterations[0]!.states.at(-1));
      // ...until, after K = N = 2 iterations, every slice has its exact start.
      expect(p.iterations[2]!.states).toEqual(f.iterations[0]!.states);
      expect(p.iterations[2]!.states).toHaveLength(3);
    },
    SLOW.timeout,
  );

  it('refuses a slice size that does not divide the controls', async () => {
    const r = await cli(
      'predict',
      '--scene',
      scene,
      '--controls',
      '[[0.05,0],[0.05,0],[0.05,0]]',
      '--slice',
      '2',
    );
    expectBadInput(r, '--slice: 3 controls do not divide into slices of 2');
  });
});

describe('parapush experiment and experiment merge', () => {
  const taskFile = writeTinyTaskFile(tmp, 'tiny', { kind: 'constant', variance: 0 });
  const out = path.join(tmp, 'experiment');
  const experiment = (...extra: string[]) =>
    cli(
      'experiment',
      '--task',
      taskFile,
      '--models',
      'coarse',
      '--scenes',
      '1',
      '--seed',
      '1',
      '--workers',
      '1',
      '--out',
      out,
      ...extra,
    );

  interface Summary {
    task: string;
    models: { model: string; runs: number; successes: number; actions: { mean: number } }[];
  }

  it(
    'runs each model on each scene, writes the report, and resumes instead of rerunning',
    async () => {
      const r = await experiment('--json');
      expect(r.code).toBe(0);
      const summary = JSON.parse(r.stdout) as Summary;
      expect(summary.task).toBe('tiny');
      expect(summary.models).toHaveLength(1);
      // Two pushes of 25 mm bring the object 34 mm from the goal's centre, inside its 40 mm radius.
      expect(summary.models[0]).toMatchObject({
        model: 'coarse',
        runs: 1,
        successes: 1,
        actions: { mean: 2 },
      });
      expect(r.stderr).toMatch(/coarse scene 0: success in 2 actions/);
      for (const f of [
        'experiment.json',
        'summary.json',
        'results.md',
        'success.svg',
        'task-time.svg',
        'runs/coarse/scene-0000.json',
      ])
        expect(existsSync(path.join(out, f)), f).toBe(true);
      expect(JSON.parse(readFileSync(path.join(out, 'experiment.json'), 'utf8'))).toEqual({
        task: 'tiny',
        models: ['coarse'],
        scenes: 1,
        seed: 1,
        commit: expect.stringMatching(/^[0-9a-f]{40}(-dirty)?$/),
        command: expect.stringMatching(
          /^npx parapush experiment --task tiny --models coarse --scenes 1 --seed 1 --out /,
        ),
        // The task file outside the checkout by its absolute path, its scene inside it relative to it.
        inputs: [
          { role: 'task', file: taskFile, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
          {
            role: 'scene',
            file: 'test/fixtures/lab-short-scene.json',
            sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
          },
        ],
      });

      const again = await experiment();
      expect(again.code).toBe(0);
      expect(again.stderr).toMatch(/coarse scene 0: kept from an earlier run/);
      expect(again.stdout).toMatch(/^\| coarse \| 1 \|/m);
    },
    SLOW.timeout,
  );

  it('refuses to mix another experiment into an output folder', async () => {
    const r = await experiment('--seed', '2');
    expectBadInput(
      r,
      /^parapush: .*experiment holds another experiment \(.*"seed":1.*\); use a new --out or the same settings\n$/,
    );
  });

  it(
    'merge joins shard folders into --into and writes the report',
    async () => {
      const into = path.join(tmp, 'merged');
      const r = await cli('experiment', 'merge', out, '--into', into, '--json');
      expect(r.code).toBe(0);
      const merged = JSON.parse(r.stdout) as Summary;
      const original = JSON.parse(readFileSync(path.join(out, 'summary.json'), 'utf8')) as unknown;
      expect(merged).toMatchObject({ task: 'tiny', models: [{ model: 'coarse', runs: 1 }] });
      expect(JSON.parse(readFileSync(path.join(into, 'summary.json'), 'utf8'))).toEqual(original);
      expect(readFileSync(path.join(into, 'runs/coarse/scene-0000.json'), 'utf8')).toBe(
        readFileSync(path.join(out, 'runs/coarse/scene-0000.json'), 'utf8'),
      );
    },
    SLOW.timeout,
  );

  it(
    'verify reruns the first scene and finds that it repeats',
    async () => {
      const r = await cli('experiment', 'verify', out, '--task-file', taskFile);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/experiment: 1 runs repeat bit for bit at [0-9a-f]{40}/);
      expect(r.stderr).toMatch(/coarse scene 0: repeats \(2 actions, success\)/);
      const gone = await cli('experiment', 'verify', out, '--task-file', taskFile, '--scene', '5');
      expectBadInput(gone, /has no run of coarse on scene 5/);
    },
    SLOW.timeout,
  );

  it(
    'verify --full reruns every scene of every model and records the check in verification/',
    async () => {
      const r = await cli('experiment', 'verify', out, '--task-file', taskFile, '--full', '--shard', '0/2');
      expect(r.code).toBe(0);
      const record = path.join(out, 'verification/shard-0-of-2.json');
      expect(r.stdout).toContain(`1 runs repeat bit for bit; recorded in ${record}`);
      expect(JSON.parse(readFileSync(record, 'utf8'))).toMatchObject({ models: ['coarse'], scenes: [0] });
      const mixed = await cli('experiment', 'verify', out, '--task-file', taskFile, '--full', '--scene', '0');
      expectBadInput(mixed, /--full reruns every scene of every model: drop --scene/);
    },
    SLOW.timeout,
  );

  it(
    'verify exits 1 naming the first value that does not repeat',
    async () => {
      const copy = path.join(tmp, 'tampered');
      cpSync(out, copy, { recursive: true });
      const file = path.join(copy, 'runs/coarse/scene-0000.json');
      const run = JSON.parse(readFileSync(file, 'utf8')) as { summary: { controls: number[][] } };
      const recorded = run.summary.controls[1]![0]!;
      run.summary.controls[1]![0] = recorded + 1e-9;
      writeFileSync(file, JSON.stringify(run));
      const r = await cli('experiment', 'verify', copy, '--task-file', taskFile);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe(
        `${copy}: differs at scene 0, coarse step 1: control[0] recorded ${recorded + 1e-9}, now ${recorded}\n`,
      );
    },
    SLOW.timeout,
  );

  it('merge refuses folders that hold no experiment', async () => {
    const empty = path.join(tmp, 'empty-shard');
    mkdirSync(empty);
    const r = await cli('experiment', 'merge', empty, '--into', path.join(tmp, 'merged-empty'));
    expectBadInput(r, 'no experiment.json found in --out or the shard folders');
  });
});

describe('parapush learn generate, train, evaluate', () => {
  const data = path.join(tmp, 'data');
  const model = path.join(tmp, 'model');
  const count = 6;
  /** `learn generate` of `count` transitions at 0.1 s into `data`; the seed is what the tests vary. */
  const generate = (seed: number, ...more: string[]) =>
    cli(
      'learn',
      'generate',
      '--scene',
      scene,
      '--out',
      data,
      '--count',
      String(count),
      '--seed',
      String(seed),
      '--dt',
      '0.1',
      ...more,
    );

  it(
    'generate writes a data set of fine-model transitions',
    async () => {
      const r = await generate(3, '--workers', '1');
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^${count} transitions in ${data} `));
      const manifest = JSON.parse(readFileSync(path.join(data, 'manifest.json'), 'utf8')) as {
        count: number;
        seed: number;
        dt: number;
        sliderCounts: Record<string, number>;
        contact: { count: number };
      };
      expect(manifest).toMatchObject({ count, seed: 3, dt: 0.1 });
      expect(Object.values(manifest.sliderCounts).reduce((a, b) => a + b, 0)).toBe(count);
      // Seed 3 gives both kinds of transition, so every column of the evaluation below has a value.
      expect(manifest.contact.count).toBeGreaterThan(0);
      expect(manifest.contact.count).toBeLessThan(count);
      expect(r.stdout).toContain(`contact cases ${manifest.contact.count} (`);
      expect(existsSync(path.join(data, 'transitions.bin'))).toBe(true);
    },
    SLOW.timeout,
  );

  it('generate run again makes no block and assembles the same data set', async () => {
    const before = readFileSync(path.join(data, 'transitions.bin'));
    const r = await generate(3);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`${data}: 1 of 1 blocks already made, 0 to make`);
    expect(r.stdout).toMatch(new RegExp(`^${count} transitions in ${data} `));
    expect(readFileSync(path.join(data, 'transitions.bin')).equals(before)).toBe(true);
  });

  it('generate refuses a data set directory made with other settings, naming the option', async () => {
    const r = await generate(4);
    expectBadInput(
      r,
      `--out: ${data} holds blocks made with seed 3; this run asks for seed 4 (--seed); use the same settings or another directory`,
    );
  });

  it('merge refuses a directory that `learn generate` did not make', async () => {
    const empty = path.join(tmp, 'not-blocks');
    mkdirSync(empty);
    const r = await cli('learn', 'merge', empty, '--into', path.join(tmp, 'merged-data'));
    expectBadInput(r, `merge: ${empty}: no generation.json: not a directory of \`learn generate\``);
  });

  it(
    'train writes weights, statistics, a model card and a loss curve',
    async () => {
      const r = await cli(
        'learn',
        'train',
        '--data',
        data,
        '--out',
        model,
        '--epochs',
        '2',
        '--batch',
        '2',
        '--validation',
        '0.34',
        '--seed',
        '1',
      );
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^model in ${model}: 2 epochs \\(best [12], epochs\\)`));
      for (const f of ['model.json', 'weights.bin', 'model-card.json', 'model-card.md', 'loss-curve.svg'])
        expect(existsSync(path.join(model, f)), f).toBe(true);
      const card = JSON.parse(readFileSync(path.join(model, 'model-card.json'), 'utf8')) as {
        seed: number;
        dataset: { transitions: number; dt: number; generator: { layout: string; blockSize: number } };
        training: { epochsRun: number; maxEpochs: number; stoppedBy: string };
      };
      expect(card).toMatchObject({
        seed: 1,
        dataset: { transitions: count, dt: 0.1, generator: { layout: 'blocks', blockSize: 1000 } },
        training: { epochsRun: 2, maxEpochs: 2, stoppedBy: 'epochs' },
      });
    },
    SLOW.timeout,
  );

  it(
    'evaluate compares the learned and the analytical model on the data set',
    async () => {
      const r = await cli(
        'learn',
        'evaluate',
        '--data',
        data,
        '--model',
        model,
        '--scene',
        scene,
        '--limit',
        String(count),
      );
      expect(r.code).toBe(0);
      const lines = r.stdout.trimEnd().split('\n');
      expect(lines[0]).toBe(
        `single-step slider pose error vs the fine model (${count} transitions of 0.1 s)`,
      );
      expect(lines[1]).toMatch(/^model +all mm +all deg +contact mm +contact deg +free mm +free deg$/);
      expect(lines.slice(2).map((l) => l.split(/\s+/)[0])).toEqual(['learned', 'analytical']);
      for (const row of lines.slice(2)) {
        const numbers = row.trim().split(/\s+/).slice(1);
        expect(numbers).toHaveLength(6);
        for (const v of numbers) expect(Number(v)).toBeGreaterThanOrEqual(0);
      }
    },
    SLOW.timeout,
  );

  it.each([
    [
      ['learn', 'generate', '--out', 'unused', '--count', '0'],
      '--count: expected a whole number >= 1, got "0"',
    ],
    [['learn', 'train', '--data', 'no-such-data', '--out', 'unused'], '--data: no such file: no-such-data'],
    [
      ['learn', 'generate', '--out', 'unused', '--shard', '2/2'],
      '--shard: expected i/n with 0 <= i < n, got "2/2"',
    ],
  ])('parapush %j exits 2 with one line', async (args, message) => {
    expectBadInput(await cli(...args), message);
  });

  it('evaluate refuses a model made for another control duration than the data set', async () => {
    // The shipped model steps 1 s controls; this data set holds 0.1 s ones.
    const shipped = path.join(repoRoot, 'resources/models/cvs-learned');
    const r = await cli('learn', 'evaluate', '--data', data, '--model', shipped, '--scene', scene);
    expectBadInput(r, `--model: ${shipped} steps 1 s controls, the data set's are 0.1 s`);
  });
});

describe('parapush mocap replay and calibrate', () => {
  it('replays the shared folder of captured NatNet packets frame by frame', async () => {
    interface Decoded {
      frame_number: number;
      rigid_bodies: { id: number; position_exact: number[] }[];
    }
    const expected = JSON.parse(readFileSync(path.join(natnetDir, 'expected.json'), 'utf8')) as {
      files: Record<string, { raw_decode_by_independent_decoder: Decoded }>;
    };
    const r = await cli('mocap', 'replay', natnetDir, '--json');
    expect(r.code).toBe(0);
    const frames = r.stdout
      .trimEnd()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as {
            frame: number;
            rigidBodies: { id: number; position: number[]; trackingValid: boolean }[];
          },
      );
    // The folder's packets in name order: the occluded frame's file sorts before the other one.
    expect(frames.map((f) => f.frame)).toEqual([269007, 162734]);
    const occluded = expected.files['mocapframe_packet_occluded_v3.bin']!.raw_decode_by_independent_decoder;
    expect(frames[0]!.frame).toBe(occluded.frame_number);
    expect(frames[0]!.rigidBodies).toEqual([
      expect.objectContaining({
        id: occluded.rigid_bodies[0]!.id,
        position: occluded.rigid_bodies[0]!.position_exact,
        trackingValid: true,
      }),
    ]);
    expect(r.stderr).toBe(`${natnetDir}: 9 packets, 2 frames, 0 undecodable, NatNet 3.0.0.0\n`);
  });

  it('calibrate names a missing pairs file', async () => {
    const r = await cli('mocap', 'calibrate', '--pairs', 'no-such-pairs.json', '--setup', 'x', '--dir', tmp);
    expectBadInput(r, '--pairs: no such file: no-such-pairs.json');
  });
});

describe('parapush log export and recover: bad input', () => {
  it('export names a missing log', async () => {
    expectBadInput(await cli('log', 'export', 'no-such.mcap', '--out', tmp), 'no such file: no-such.mcap');
  });

  it('recover refuses a file that is not a session log, and leaves it untouched', async () => {
    const foreign = path.join(tmp, 'notes.mcap');
    writeFileSync(foreign, 'not a log\n');
    const r = await cli('log', 'recover', foreign);
    expectBadInput(r, `${foreign}: not an MCAP file (it does not start with the MCAP magic bytes)`);
    expect(readFileSync(foreign, 'utf8')).toBe('not a log\n');
  });
});
