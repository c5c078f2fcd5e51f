import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { modelCardMarkdown, modelCardSchema } from '../../src-main/learned/model-card';
import { repoRoot } from '../helpers/scenes';

const shippedDir = path.join(repoRoot, 'resources/models/cvs-learned');
const shipped = modelCardSchema.parse(
  JSON.parse(readFileSync(path.join(shippedDir, 'model-card.json'), 'utf8')),
);

describe('model card', () => {
  it('a card without a generator (data of the single-stream generator) still reads and says so', () => {
    expect(shipped.dataset.generator).toBeUndefined();
    expect(modelCardMarkdown(shipped)).toContain('| generator | single stream (before blocks) |');
  });

  it('names the block generator of its data set', () => {
    const card = {
      ...shipped,
      dataset: {
        ...shipped.dataset,
        generator: {
          layout: 'blocks' as const,
          version: 1 as const,
          blockSize: 1000,
          sliderMix: [1, 1, 1, 1],
        },
      },
    };
    expect(modelCardMarkdown(modelCardSchema.parse(card))).toContain(
      '| generator | blocks of 1000 (layout version 1), slider mix 1,1,1,1 |',
    );
  });

  it('the shipped model-card.md is the rendering of its model-card.json', () => {
    expect(readFileSync(path.join(shippedDir, 'model-card.md'), 'utf8')).toBe(modelCardMarkdown(shipped));
  });
});
