/**
 * `learn generate` when a fine job fails for good: exit 1 with one message naming the block and
 * transition, and the advice that finished blocks are kept (a generation takes hours).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliWithin } from '../helpers/cli';
import { repoRoot } from '../helpers/scenes';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'parapush-generate-failure-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('parapush learn generate', () => {
  it('stops at a job the fine model refuses, naming its block and transition', async () => {
    const out = path.join(tmp, 'data');
    // A worker's start-up on a loaded two-core machine can take tens of seconds.
    const r = await cliWithin(
      230,
      'learn',
      'generate',
      '--scene',
      path.join(repoRoot, 'test/fixtures/lab-short-scene.json'),
      '--out',
      out,
      '--count',
      '4',
      '--block',
      '2',
      // Pushes of 1.3 ms are no whole number of the fine model's 2 ms steps: every job is refused.
      '--dt',
      '0.0013',
      '--fine',
      'Euler:2',
      '--workers',
      '1',
    );
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    // One worker runs the jobs in order: the first transition fails first.
    expect(r.stderr).toMatch(
      /\nparapush: block 0, transition 0: fine job 1 failed on worker \d+: .*0\.0013 s is not a whole number of 0\.002 s time steps\nfinished blocks are kept; run the same command again to resume\n$/,
    );
    expect(r.stderr).not.toMatch(/replaced/);
    expect(readdirSync(path.join(out, 'blocks'))).toEqual([]);
  }, 240_000);
});
