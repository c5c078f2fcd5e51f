import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { benchBlockFiles, blockBegin, blockEnd, BENCH_BLOCKS } from '../../src-main/experiments/bench-blocks';
import { benchRoot } from '../helpers/bench-root';
import { repoRoot } from '../helpers/scenes';

describe('bench blocks', () => {
  it('the committed pages hold exactly what `npm run results` writes from bench/results', () => {
    const files = benchBlockFiles(repoRoot);
    expect(Object.keys(files).sort()).toEqual([...new Set(BENCH_BLOCKS.map((b) => b.page))].sort());
    for (const [file, text] of Object.entries(files))
      expect(readFileSync(path.join(repoRoot, file), 'utf8'), `${file}: run npm run results`).toBe(text);
  });

  it('each block says its bench has not been run while no result is committed', () => {
    const root = benchRoot({});
    for (const b of BENCH_BLOCKS)
      expect(b.table(root), b.name).toMatch(
        /^(Not measured: no `bench\/results\/[\w-]+\.json` is committed|No soak has been recorded)/,
      );
  });

  it('fills each block of a page on top of what another generator wrote, and needs the markers', () => {
    const root = benchRoot({});
    mkdirSync(path.join(root, 'docs'));
    const page = `# P\n\n${blockBegin('a')}\n\nold\n\n${blockEnd('a')}\n\n${blockBegin('b')}\n${blockEnd('b')}\n`;
    writeFileSync(path.join(root, 'docs/p.md'), 'not this text');
    const blocks = [
      { page: 'docs/p.md', name: 'a', table: () => '| A |' },
      { page: 'docs/p.md', name: 'b', table: (r: string) => `from ${path.basename(r)}` },
    ];
    expect(benchBlockFiles(root, { 'docs/p.md': page }, blocks)['docs/p.md']).toBe(
      `# P\n\n${blockBegin('a')}\n\n| A |\n\n${blockEnd('a')}\n\n${blockBegin('b')}\n\nfrom ${path.basename(root)}\n\n${blockEnd('b')}\n`,
    );
    expect(() => benchBlockFiles(root, {}, blocks)).toThrow(/no "<!-- a: generated/);
    expect(() => benchBlockFiles(root, {}, [{ page: 'docs/q.md', name: 'c', table: () => '' }])).toThrow(
      /docs\/q.md is missing/,
    );
  });
});
