/**
 * `parapush --help` lists every command without importing any of them (MuJoCo, TensorFlow, the
 * console and the device clients take seconds to import); a command imports only its own module.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Command } from 'commander';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { commandEntries } from '../../src-main/cli/commands';
import { repoRoot } from '../helpers/scenes';

vi.setConfig({ testTimeout: 120_000 });

const tmp = mkdtempSync(path.join(os.tmpdir(), 'parapush-lazy-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Runs `parapush ARGS` and returns what it printed and the repository files it imported. */
async function importsOf(...args: string[]): Promise<{ stdout: string; files: string[] }> {
  const trace = path.join(tmp, `${args.join('_')}.txt`);
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      '--import',
      path.join(repoRoot, 'test/helpers/trace-imports.mjs'),
      path.join(repoRoot, 'bin/parapush.mjs'),
      ...args,
    ],
    { cwd: repoRoot, env: { ...process.env, PARAPUSH_TRACE_IMPORTS: trace } },
  );
  const root = `file://${repoRoot}/`;
  const files = readFileSync(trace, 'utf8')
    .split('\n')
    .filter((url) => url.startsWith(root))
    .map((url) => url.slice(root.length));
  return { stdout, files: [...new Set(files)] };
}

/** What a command may not import before it runs: everything heavy, and every command's own module. */
const HEAVY = [
  /^node_modules\/@mujoco\//,
  /^node_modules\/@tensorflow\//,
  /^node_modules\/@mcap\//,
  /^src-main\/(console|planning|parareal|lab|learned|experiments|robot|mocap|run|safety)\//,
  /^src-workers\//,
];

describe('lazy command modules', () => {
  it('each summary is the description its module gives the command', async () => {
    for (const entry of commandEntries) {
      const program = new Command();
      (await entry.load())(program);
      const cmd = program.commands.find((c) => c.name() === entry.name);
      expect(cmd?.description(), entry.name).toBe(entry.summary);
    }
  });

  it('`parapush --help` lists every command and imports none of them', async () => {
    const { stdout, files } = await importsOf('--help');
    for (const entry of commandEntries) expect(stdout).toMatch(new RegExp(`^  ${entry.name} `, 'm'));
    // The trace sees the program itself: an empty list would pass the checks below for nothing.
    expect(files).toContain('src-main/cli/commands/index.ts');
    expect(
      files.filter((f) => f.startsWith('src-main/cli/commands/') && f !== 'src-main/cli/commands/index.ts'),
    ).toEqual([]);
    expect(files.filter((f) => HEAVY.some((h) => h.test(f)))).toEqual([]);
  });

  it("a command's help imports its own module and no other command's", async () => {
    const { stdout, files } = await importsOf('scene', '--help');
    expect(stdout).toMatch(/^Usage: parapush scene/m);
    expect(files).toContain('src-main/cli/commands/scene.ts');
    expect(files.filter((f) => /^src-main\/cli\/commands\/(?!index|scene)/.test(f))).toEqual([]);
  });
});
