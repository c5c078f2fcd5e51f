import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  generatedResults,
  withGeneratedBlock,
  README_BEGIN,
  README_END,
} from '../../src-main/experiments/results-page';
import { repoRoot } from '../helpers/scenes';

describe('the generated results', () => {
  it('docs/results.md and the README table are exactly what `npm run results` writes', () => {
    for (const [file, text] of Object.entries(generatedResults(repoRoot)))
      expect(readFileSync(path.join(repoRoot, file), 'utf8'), `${file}: run npm run results`).toBe(text);
  });

  it('replaces only the README block between its markers', () => {
    const readme = `# T\n\nintro\n\n${README_BEGIN}\n\nold\n\n${README_END}\n\nrest\n`;
    expect(withGeneratedBlock(readme, README_BEGIN, README_END, '| new |')).toBe(
      `# T\n\nintro\n\n${README_BEGIN}\n\n| new |\n\n${README_END}\n\nrest\n`,
    );
    expect(() => withGeneratedBlock('# no block', README_BEGIN, README_END, 'x')).toThrow(/no "/);
  });
});
