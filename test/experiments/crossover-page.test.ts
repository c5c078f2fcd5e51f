import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  crossoverDocBlock,
  crossoverFiles,
  crossoverReadmeBlock,
} from '../../src-main/experiments/crossover-page';
import { readCrossoverResult, type CrossoverResult } from '../../src-main/parareal/crossover-result';

const repoRoot = path.resolve(import.meta.dirname, '../..');

describe('where Parareal pays, as generated from the crossover bench', () => {
  it('README.md, docs/physics-and-parareal.md and the chart are what `npm run results` writes', () => {
    const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
    for (const [file, text] of Object.entries(crossoverFiles(repoRoot, readme)))
      expect(readFileSync(path.join(repoRoot, file), 'utf8'), file).toBe(text);
  });

  it('states each crossover and the load it was measured at, from the data', () => {
    const r: CrossoverResult = {
      ...readCrossoverResult(),
      crossover: {
        prediction: { byModel: { 'parareal:1': 2, 'parareal:2': 3, 'parareal:3': null }, auto: 3 },
        step: { byModel: { 'parareal:1': 20, 'parareal:2': 40, 'parareal:3': 60 }, auto: 40 },
      },
    };
    const doc = crossoverDocBlock(r, 'chart.svg');
    expect(doc).toContain('K = 1 from W = 2 on, K = 2 from W = 3 on, K = 3 at no W up to');
    expect(doc).toContain('`auto` (K >= 2) picks Parareal from W = 40 on.');
    expect(doc).toContain(`load average ${r.machine.loadAtStart} at the start and ${r.loadAtEnd} at the end`);
    const readme = crossoverReadmeBlock(r);
    expect(readme).toMatch(
      /one prediction Parareal K = 2 beats the fine model from W = 3 on \(W fine workers\)/,
    );
    expect(readme).toMatch(/So on 2, 8, 16 cores the fine model plans a step sooner/);
    const cluster = crossoverReadmeBlock({
      ...r,
      crossover: { ...r.crossover, step: { byModel: { 'parareal:2': 12 }, auto: 12 } },
    });
    expect(cluster).toMatch(/So on 2, 8 cores the fine model plans a step sooner, which is why/);
  });
});
