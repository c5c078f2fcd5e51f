import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  modelCardMarkdown,
  modelCardSchema,
  repeatableTrainCommand,
} from '../../src-main/learned/model-card';
import { repoRoot } from '../helpers/scenes';

const shippedDir = path.join(repoRoot, 'resources/models/cvs-learned');
const shipped = modelCardSchema.parse(
  JSON.parse(readFileSync(path.join(shippedDir, 'model-card.json'), 'utf8')),
);

describe('model card', () => {
  it('a card without a generator (data of the single-stream generator) still reads and says so', () => {
    const card = structuredClone(shipped);
    delete card.dataset.generator;
    expect(modelCardMarkdown(modelCardSchema.parse(card))).toContain(
      '| generator | single stream (before blocks) |',
    );
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

  describe('the reproduce command', () => {
    const typed = ['learn', 'train', '--data', 'd', '--out', 'm', '--max-minutes', '40', '--seed', '1'];

    it('a run the time budget stopped is repeated by the epochs it reached', () => {
      expect(repeatableTrainCommand(typed, 7, 'time')).toBe(
        'npx parapush learn train --data d --out m --seed 1 --epochs 7',
      );
      expect(repeatableTrainCommand([...typed, '--epochs=100'], 7, 'time')).toBe(
        'npx parapush learn train --data d --out m --seed 1 --epochs 7',
      );
    });

    it('a run that ended by itself keeps its epoch bound and drops only the budget', () => {
      expect(
        repeatableTrainCommand(['--epochs', '100', '--max-minutes=5', '--lr', '5e-4'], 12, 'early-stopping'),
      ).toBe('npx parapush --epochs 100 --lr 5e-4');
      expect(repeatableTrainCommand(['learn', 'train', '--epochs', '3'], 3, 'epochs')).toBe(
        'npx parapush learn train --epochs 3',
      );
    });
  });
});
