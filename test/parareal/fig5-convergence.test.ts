/**
 * ISRR Fig. 5 as the bench measures it (bench/parareal.ts): the pooled RMS of the slider's pose
 * and velocity is not monotone in K in three of the four pushes. What docs/physics-and-parareal.md
 * says of it is checked here on the fine model itself: the position error falls with every
 * iteration in every case, and wherever the pooled metric rises, it rises to a value below the
 * fine model's own floor (the same metric against the fine model started 0.1 mm to the side).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { fig5Errors } from '../../bench/parareal';
import { FinePool } from '../../src-main/parareal/fine-pool';

describe('ISRR Fig. 5 convergence', () => {
  const pool = new FinePool({ workers: 2 });
  afterAll(() => pool.close());

  it('falls in position with every iteration, and rises in the pooled metric only below the fine floor', async () => {
    const { rows, poseRows } = await fig5Errors(pool);
    expect(rows.map((r) => r.push)).toEqual(['cylinder centre', 'cylinder side', 'box centre', 'box side']);
    for (const [i, row] of rows.entries()) {
      const pooled = [0, 1, 2, 3, 4].map((k) => Number(row[`k=${k}`]));
      const position = [0, 1, 2, 3, 4].map((k) => Number(poseRows[i]![`k=${k} mm`]));
      const floor = Number(row['fine floor']);
      expect(pooled[4], `${row.push}: K = 4 is the fine model`).toBe(0);
      for (let k = 1; k <= 4; k++) {
        expect(position[k], `${row.push}: position error at k=${k}`).toBeLessThanOrEqual(position[k - 1]!);
        if (pooled[k]! > pooled[k - 1]!)
          expect(pooled[k], `${row.push}: pooled error rising at k=${k}`).toBeLessThan(floor);
      }
    }
  }, 300_000);
});
