/**
 * The coarse network of CVS 2020 Sec. 4: a multilayer perceptron with hidden layers of 512, 256,
 * 128 and 64 ReLU units and a linear output layer, written with TensorFlow.js core ops on plain
 * variables so that training (a custom loss with penetration penalties) and batched inference run
 * the same forward pass.
 */
import { tf } from './tf-backend';

export const HIDDEN_UNITS: readonly number[] = [512, 256, 128, 64];

export interface DenseLayer {
  w: tf.Variable;
  b: tf.Variable;
}

export interface Mlp {
  sizes: readonly number[];
  layers: DenseLayer[];
}

/** Glorot-uniform weights from `seed`, zero biases. */
export function createMlp(inputSize: number, outputSize: number, seed: number): Mlp {
  const sizes = [inputSize, ...HIDDEN_UNITS, outputSize];
  const layers: DenseLayer[] = [];
  for (let l = 0; l + 1 < sizes.length; l++) {
    const fanIn = sizes[l]!;
    const fanOut = sizes[l + 1]!;
    const limit = Math.sqrt(6 / (fanIn + fanOut));
    layers.push({
      w: tf.variable(tf.randomUniform([fanIn, fanOut], -limit, limit, 'float32', seed + l)),
      b: tf.variable(tf.zeros([fanOut])),
    });
  }
  return { sizes, layers };
}

/** Normalised outputs for a batch of normalised inputs. */
export function forward(mlp: Mlp, x: tf.Tensor2D): tf.Tensor2D {
  return tf.tidy(() => {
    let h = x;
    mlp.layers.forEach((layer, l) => {
      h = tf.add(tf.matMul(h, layer.w), layer.b) as tf.Tensor2D;
      if (l + 1 < mlp.layers.length) h = tf.relu(h);
    });
    return h;
  });
}

export function trainableVariables(mlp: Mlp): tf.Variable[] {
  return mlp.layers.flatMap((l) => [l.w, l.b]);
}

export function parameterCount(sizes: readonly number[]): number {
  let n = 0;
  for (let l = 0; l + 1 < sizes.length; l++) n += sizes[l]! * sizes[l + 1]! + sizes[l + 1]!;
  return n;
}

/** All weights and biases, layer by layer (w row-major [in][out], then b), as float32. */
export function exportWeights(mlp: Mlp): Float32Array {
  const out = new Float32Array(parameterCount(mlp.sizes));
  let o = 0;
  for (const { w, b } of mlp.layers) {
    for (const t of [w, b]) {
      const v = t.dataSync() as Float32Array;
      out.set(v, o);
      o += v.length;
    }
  }
  return out;
}

/** Overwrites the MLP's variables with exported weights (e.g. the best epoch's). */
export function assignWeights(mlp: Mlp, weights: Float32Array): void {
  if (weights.length !== parameterCount(mlp.sizes))
    throw new Error(`expected ${parameterCount(mlp.sizes)} weights, got ${weights.length}`);
  let o = 0;
  for (const { w, b } of mlp.layers) {
    for (const t of [w, b]) {
      const n = t.size;
      t.assign(tf.tensor(weights.subarray(o, o + n), t.shape, 'float32'));
      o += n;
    }
  }
}

/** An MLP of the given layer sizes holding exactly these weights. */
export function mlpFromWeights(sizes: readonly number[], weights: Float32Array): Mlp {
  if (weights.length !== parameterCount(sizes))
    throw new Error(
      `layer sizes ${sizes.join('-')} need ${parameterCount(sizes)} weights, got ${weights.length}`,
    );
  const layers: DenseLayer[] = [];
  let o = 0;
  for (let l = 0; l + 1 < sizes.length; l++) {
    const fanIn = sizes[l]!;
    const fanOut = sizes[l + 1]!;
    const w = tf.variable(tf.tensor2d(weights.subarray(o, o + fanIn * fanOut), [fanIn, fanOut]), false);
    o += fanIn * fanOut;
    const b = tf.variable(tf.tensor1d(weights.subarray(o, o + fanOut)), false);
    o += fanOut;
    layers.push({ w, b });
  }
  return { sizes: [...sizes], layers };
}

export function disposeMlp(mlp: Mlp): void {
  for (const { w, b } of mlp.layers) {
    w.dispose();
    b.dispose();
  }
}
