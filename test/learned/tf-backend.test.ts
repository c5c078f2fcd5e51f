import { describe, expect, it } from 'vitest';
import { tf, tfBackendReady } from '../../src-main/learned/tf-backend';

describe('tfBackendReady', () => {
  it('starts a backend that computes', async () => {
    const name = await tfBackendReady();
    expect(['tensorflow', 'wasm']).toContain(name);
    expect(tf.getBackend()).toBe(name);
    const y = tf.matMul(tf.tensor2d([[1, 2]]), tf.tensor2d([[3], [4]]));
    expect(Array.from(y.dataSync())).toEqual([11]);
  });
});
