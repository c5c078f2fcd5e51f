import { describe, expect, it } from 'vitest';
import { lossCurveSvg } from '../../src-main/learned/loss-plot';

describe('lossCurveSvg', () => {
  it('draws one point per epoch for both curves and marks the best epoch', () => {
    const history = [3, 1, 0.5, 0.7].map((v, i) => ({
      epoch: i + 1,
      trainLoss: v * 0.9,
      valLoss: v,
      valMse: v,
      valPenetration: 0,
      seconds: i,
    }));
    const svg = lossCurveSvg(history, 3, 'a <title>');
    const paths = [...svg.matchAll(/<path d="([^"]+)"/g)].map((m) => m[1]!);
    expect(paths).toHaveLength(2);
    for (const d of paths) expect(d.split(' ')).toHaveLength(4);
    expect(svg).toContain('best epoch 3');
    expect(svg).toContain('a &lt;title&gt;');
    // Log scale, small values at the bottom: epoch 3's loss sits below epoch 1's.
    const ys = paths[1]!.split(' ').map((p) => Number(p.slice(1).split(',')[1]));
    expect(ys[2]!).toBeGreaterThan(ys[0]!);
  });
});
