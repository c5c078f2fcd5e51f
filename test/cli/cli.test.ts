/**
 * The `parapush` command line as a user meets it, through bin/parapush.mjs: every scene of the
 * README's glob checked, the version, bad input (unknown options and commands, missing files)
 * answered with one clear line and exit code 2, and the predict table's headers over their columns.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, cliWithin } from '../helpers/cli';
import { repoRoot } from '../helpers/scenes';

const sceneDir = 'resources/scenes';
/** What the shell makes of the README's `resources/scenes/*.json`. */
const readmeGlob = readdirSync(path.join(repoRoot, sceneDir))
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => `${sceneDir}/${f}`);

describe('parapush scene check', () => {
  it("checks every file of the README's glob, one ok line each", async () => {
    expect(readmeGlob.length).toBeGreaterThanOrEqual(4);
    const r = await cli('scene', 'check', ...readmeGlob);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.trimEnd().split('\n')).toEqual(
      readmeGlob.map((f) => expect.stringMatching(`^${f}: ok \\(`)),
    );
    // Each names its robot by the tool's title.
    expect(r.stdout).toMatch(/isrr-obstacle\.json: ok \(isrr-obstacle: Cylindrical pusher, 1 slider/);
    expect(r.stdout).toMatch(/wafr-clutter\.json: ok \(wafr-clutter: Parallel gripper, /);
  });

  it('reports every file even after failures, one line each, and exits 2 for a missing file', async () => {
    const [first, second] = readmeGlob;
    const r = await cli('scene', 'check', first!, 'package.json', 'no-such-scene.json', second!);
    // A missing file is bad input (2, as for every command); an invalid scene alone is 1.
    expect(r.code).toBe(2);
    expect((await cli('scene', 'check', first!, 'package.json')).code).toBe(1);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/: ok \(/);
    expect(lines[1]).toMatch(/^package\.json: invalid scene: .*table: .*; .*sliders: /);
    expect(lines[2]).toBe('no such file: no-such-scene.json');
    expect(lines[3]).toMatch(/: ok \(/);
    expect(r.stderr).toMatch(/2 of 4 scene file\(s\) failed/);
  });
});

describe('parapush options and bad input', () => {
  it('--version prints the package version', async () => {
    const { version } = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
      version: string;
    };
    const r = await cli('--version');
    expect(r).toMatchObject({ code: 0, stdout: `${version}\n` });
  });

  it.each([
    [['--bogus'], "unknown option '--bogus'"],
    [['bogus'], "unknown command 'bogus'"],
    [['scene', 'check', '--bogus', 'x.json'], "unknown option '--bogus'"],
  ])('parapush %j exits 2 with one clear line', async (args, message) => {
    const r = await cli(...args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    // The message comes first, with a pointer to --help instead of the whole help text.
    expect(r.stderr).toBe(`parapush: ${message}\n(add --help for usage)\n`);
  });

  const scene = 'resources/scenes/isrr-obstacle.json';
  it.each([
    [['simulate', '--scene', 'gone.json', '--controls', '[[0.05,0]]'], 'no such file: gone.json'],
    [['simulate', '--scene', scene, '--controls', 'gone.json'], '--controls: no such file: gone.json'],
    [['predict', '--scene', 'gone.json', '--controls', '[[0.05,0]]'], 'no such file: gone.json'],
    [
      ['run', '--robot', '127.0.0.1', '--mocap', '127.0.0.1', '--task', 'gone.json'],
      '--task: no such file: gone.json',
    ],
    [['experiment', '--task', 'gone.json'], '--task: no such file: gone.json'],
    [['log', 'info', 'gone.mcap'], 'no such file: gone.mcap'],
  ])('parapush %j says "no such file" and exits 2', async (args, message) => {
    const r = await cli(...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`parapush: ${message}\n`);
  });
});

describe('parapush learn generate --fine', () => {
  it.each([
    ['RK4:0.01', '--fine: timestep: must be at least 0.0001 s'],
    ['leapfrog:2', '--fine: integrator: '],
    ['2ms', '--fine: expected INTEGRATOR:MS (e.g. RK4:1 or Euler:2), got "2ms"'],
  ])('rejects %s naming the field, before any work', async (spec, message) => {
    const r = await cli('learn', 'generate', '--out', 'unused', '--count', '1', '--fine', spec);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`parapush: ${message}`);
  });
});

/** Where each column ends: tokens are separated by two spaces or more, words inside by one. */
const columnEnds = (line: string): number[] =>
  [...line.matchAll(/\S+(?: \S+)*/g)].map((m) => m.index + m[0].length);

describe('parapush predict', () => {
  it('prints each header right-aligned over its column', async () => {
    const r = await cli(
      'predict',
      '--scene',
      'resources/scenes/cvs-multi-object.json',
      '--controls',
      '[[0.05,0],[0.05,0]]',
      '--model',
      'coarse',
      '--workers',
      '1',
    );
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    const header = lines.findIndex((l) => l.startsWith('n  '));
    const [groups, names, ...rows] = [
      lines[header - 1]!,
      lines[header]!,
      ...lines.slice(header + 1, header + 4),
    ];
    expect(groups.trim().split(/\s+/)).toEqual(['pusher', 'target', 'other1', 'other2', 'other3']);
    expect(names).toMatch(/^n {2}x \[mm\] {2}y \[mm\] {2}x \[mm\] {2}y \[mm\] {2}theta \[deg\]/);
    expect(rows).toHaveLength(3);
    for (const row of rows) expect(columnEnds(row)).toEqual(columnEnds(names));
    // Each body's name starts over its first column: after the column before, not past its x header.
    const xStarts = [...names.matchAll(/x \[mm\]/g)].map((m) => m.index);
    const groupStarts = [...groups.matchAll(/\S+/g)].map((m) => m.index);
    groupStarts.forEach((start, i) => {
      expect(start).toBeLessThanOrEqual(xStarts[i]!);
      expect(start).toBeGreaterThan(Math.max(...columnEnds(names).filter((end) => end < xStarts[i]!)));
    });
  });
});

describe('a command that does not end', () => {
  it("fails its test within the helper's limit, with the command's output", async () => {
    // `mocap serve` runs until Ctrl+C: the limit kills it and the call says what it printed.
    const serve = ['mocap', 'serve', '--scene', 'test/fixtures/lab-short-scene.json', '--unicast'];
    const ports = ['--command-port', '0', '--data-port', '0'];
    await expect(cliWithin(3, ...serve, ...ports)).rejects.toThrow(
      /^parapush mocap serve .* did not end within 3 s\n--- stdout ---\n[\s\S]*\n--- stderr ---\n/,
    );
  });
});
