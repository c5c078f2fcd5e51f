import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  generatedResults,
  verdict,
  withGeneratedBlock,
  README_BEGIN,
  README_END,
  type PaperFigure,
} from '../../src-main/experiments/results-page';
import { repoRoot } from '../helpers/scenes';

describe('the generated results', () => {
  it('docs/results.md and the README table are exactly what `npm run results` writes', () => {
    for (const [file, text] of Object.entries(generatedResults(repoRoot)))
      expect(readFileSync(path.join(repoRoot, file), 'utf8'), `${file}: run npm run results`).toBe(text);
  });

  const row = {
    model: 'fine',
    runs: 30,
    successes: 27,
    successRate: 0.9,
    successLow: 0.74,
    successHigh: 0.97,
    taskTime: { mean: 20, ci95: 2 },
    taskTimeAll: { mean: 22, ci95: 3 },
    planningPerStep: { mean: 0.4, ci95: 0.01, max: 1 },
    actions: { mean: 10, ci95: 1 },
    outcomes: { success: 27, 'action-limit': 3 },
  };
  const figure = (metric: PaperFigure['metric'], value: number): PaperFigure => ({
    experiment: 'x',
    model: 'fine',
    metric,
    value,
    source: 'paper',
  });

  it('a paper figure inside our 95% interval is reproduced, outside it bettered or missed', () => {
    expect(verdict(row, figure('success', 0.8))).toBe('reproduces');
    expect(verdict(row, figure('success', 0.5))).toBe('betters');
    expect(verdict(row, figure('success', 1))).toBe('falls short');
    expect(verdict(row, figure('task-time', 21.5))).toBe('reproduces');
    expect(verdict(row, figure('task-time', 240))).toBe('betters');
    expect(verdict(row, figure('task-time', 5))).toBe('falls short');
    expect(verdict({ ...row, taskTime: { mean: null, ci95: null } }, figure('task-time', 5))).toBeNull();
  });

  it('replaces only the README block between its markers', () => {
    const readme = `# T\n\nintro\n\n${README_BEGIN}\n\nold\n\n${README_END}\n\nrest\n`;
    expect(withGeneratedBlock(readme, README_BEGIN, README_END, '| new |')).toBe(
      `# T\n\nintro\n\n${README_BEGIN}\n\n| new |\n\n${README_END}\n\nrest\n`,
    );
    expect(() => withGeneratedBlock('# no block', README_BEGIN, README_END, 'x')).toThrow(/no "/);
  });
});
