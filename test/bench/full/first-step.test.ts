/**
 * The first-step benchmark runs and reports its groups: a run's first step and its later steps on
 * warm workers, each with its sequences, their workers' CPU time and their solver iterations. The
 * counts are deterministic (fine model, fixed seeds), so the finding they carry is asserted: the
 * first step's sequences of isrr-obstacle are more solver work than the later steps'.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fitLine } from '../../../bench/first-step';

describe('first-step benchmark', () => {
  const out = mkdtempSync(path.join(os.tmpdir(), 'bench-'));
  beforeAll(() => vi.stubEnv('PARAPUSH_BENCH_OUT', out));
  afterAll(() => vi.unstubAllEnvs());

  it('fits a line by least squares', () => {
    expect(
      fitLine([
        { x: 0, y: 1 },
        { x: 1, y: 3 },
        { x: 2, y: 5 },
      ]),
    ).toEqual({ a: 1, b: 2 });
  });

  it("reports the first step's work and CPU time per sequence beside the later steps'", async () => {
    const log = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      await (await import('../../../bench/first-step')).run(['--steps', '3']);
    } finally {
      log.mockRestore();
    }
    const result = JSON.parse(readFileSync(path.join(out, 'first-step.json'), 'utf8'));
    type Group = Record<string, string | number>;
    const groups = result.groups as Group[];
    expect(groups.map((g) => g.plans)).toEqual([
      'fresh workers: another scene, first plan',
      'fresh workers: another scene, second plan',
      'scene registered on warm workers: step 0, plan 1',
      'scene registered on warm workers: step 0, plan 2',
      'scene registered on warm workers: step 0, plan 3',
      'run: step 0',
      'run: later steps',
    ]);
    for (const g of groups) {
      expect(g.sequences).toBeGreaterThan(0);
      expect(g['worker CPU ms/sequence']).toBeGreaterThan(0);
    }
    const iterations = (label: string): number =>
      groups.find((g) => g.plans === label)!['solver iterations/sequence'] as number;
    expect(iterations('run: step 0')).toBeGreaterThan(1.2 * iterations('run: later steps'));
  }, 600_000);
});
