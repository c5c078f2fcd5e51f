/**
 * Training (CVS 2020 Sec. 4, scaled to a CPU): seeded shuffle and validation split, Adam on
 * mini-batches, the loss of loss.ts, early stopping on the validation loss with the best epoch's
 * weights kept, and an optional wall-time budget.
 */
import { monotonicSeconds } from '../common/clock';
import { Rng } from '../common/rng';
import { recordAt, type Dataset } from './dataset';
import { MAX_SLIDERS, paddedLayout } from './slots';
import { encodeInput, encodeTarget, INPUT_SIZE, OUTPUT_SIZE } from './features';
import { trainingLoss } from './loss';
import { assignWeights, createMlp, exportWeights, forward, trainableVariables, type Mlp } from './network';
import { computeNormalization, standardize, type Normalization } from './normalization';
import { tf } from './tf-backend';

export interface TrainOptions {
  seed: number;
  /** Upper bound on epochs (CVS 2020: 100). */
  epochs: number;
  batchSize: number;
  learningRate: number;
  validationFraction: number;
  /** Epochs without a better validation loss before training stops. */
  patience: number;
  penetrationWeight: number;
  /**
   * Extra copies of each training transition with 2 or more sliders, their slots shuffled:
   * sliders are interchangeable, and the later slots are in use in fewer transitions.
   */
  slotShuffles: number;
  /** Stop after the epoch that crosses this wall time (s); null for no limit. */
  maxDuration: number | null;
  onEpoch?: (e: EpochRecord, bestEpoch: number) => void;
}

/** CVS 2020 Sec. 6.1: Adam at learning rate 5e-4, batch 1024, 100 epochs. */
export const defaultTrainOptions: Omit<TrainOptions, 'seed'> = {
  epochs: 100,
  batchSize: 1024,
  learningRate: 5e-4,
  validationFraction: 0.1,
  patience: 10,
  penetrationWeight: 0.01,
  slotShuffles: 1,
  maxDuration: null,
};

export interface EpochRecord {
  epoch: number;
  trainLoss: number;
  valLoss: number;
  valMse: number;
  valPenetration: number;
  seconds: number;
}

export interface TrainResult {
  mlp: Mlp;
  normalization: Normalization;
  history: EpochRecord[];
  bestEpoch: number;
  stoppedBy: 'epochs' | 'early-stopping' | 'time';
  trainCount: number;
  validationCount: number;
  seconds: number;
}

/** The padded state with slider slots reordered: slot k of the result is slot perm[k] of x. */
function permuteSlots(x: Float64Array, perm: readonly number[]): Float64Array {
  const out = x.slice();
  perm.forEach((from, to) =>
    paddedLayout.setSlider(out, to, paddedLayout.sliderPose(x, from), paddedLayout.sliderVelocity(x, from)),
  );
  return out;
}

/**
 * Raw input features and targets of the given records; with an rng, each record with 2 or more
 * sliders is followed by `shuffles` copies with its slots in random order.
 */
export function datasetFeatures(
  dataset: Dataset,
  rows: readonly number[] = Array.from({ length: dataset.manifest.count }, (_, i) => i),
  shuffles = 0,
  rng: Rng | null = null,
): { inputs: Float32Array; targets: Float32Array; count: number } {
  const items: { start: Float64Array; end: Float64Array; ux: number; uy: number; sliders: number }[] = [];
  for (const i of rows) {
    const r = recordAt(dataset.records, i);
    items.push(r);
    if (!rng || r.sliders < 2) continue;
    for (let c = 0; c < shuffles; c++) {
      const perm = Array.from({ length: MAX_SLIDERS }, (_, k) => k);
      shuffle(rng, perm, r.sliders);
      items.push({ ...r, start: permuteSlots(r.start, perm), end: permuteSlots(r.end, perm) });
    }
  }
  const inputs = new Float32Array(items.length * INPUT_SIZE);
  const targets = new Float32Array(items.length * OUTPUT_SIZE);
  items.forEach((r, k) => {
    encodeInput(r.start, r.ux, r.uy, r.sliders, inputs, k * INPUT_SIZE);
    encodeTarget(r.start, r.end, r.ux, r.uy, targets, k * OUTPUT_SIZE);
  });
  return { inputs, targets, count: items.length };
}

function gather(src: Float32Array, width: number, rows: readonly number[]): Float32Array {
  const out = new Float32Array(rows.length * width);
  rows.forEach((r, k) => out.set(src.subarray(r * width, (r + 1) * width), k * width));
  return out;
}

/** Fisher-Yates over the first `length` entries of xs. */
function shuffle(rng: Rng, xs: number[], length = xs.length): void {
  for (let i = length - 1; i > 0; i--) {
    const j = Math.floor(rng.uniform() * (i + 1));
    [xs[i], xs[j]] = [xs[j]!, xs[i]!];
  }
}

export async function trainModel(dataset: Dataset, o: TrainOptions): Promise<TrainResult> {
  const t0 = monotonicSeconds();
  const { geometry, dt } = dataset.manifest;
  const n = dataset.manifest.count;
  const order = Array.from({ length: n }, (_, i) => i);
  const rng = new Rng(o.seed);
  shuffle(rng, order);
  const validationCount = Math.max(1, Math.round(n * o.validationFraction));
  if (validationCount >= n) throw new Error(`${n} transitions leave nothing to train on`);
  const valRows = order.slice(0, validationCount);
  const trainRows = order.slice(validationCount);

  const training = datasetFeatures(dataset, trainRows, o.slotShuffles, rng);
  const validation = datasetFeatures(dataset, valRows);
  const trainIn = training.inputs;
  const trainOut = training.targets;
  const normalization = computeNormalization(trainIn, INPUT_SIZE, trainOut, OUTPUT_SIZE);
  const norm = (raw: Float32Array): Float32Array =>
    standardize(raw.slice(), normalization.inputMean, normalization.inputStd);
  const normTarget = (raw: Float32Array): Float32Array =>
    standardize(raw.slice(), normalization.outputMean, normalization.outputStd);
  const trainInNorm = norm(trainIn);
  const trainOutNorm = normTarget(trainOut);
  const valIn = validation.inputs;
  const valInNorm = norm(valIn);
  const valOutNorm = normTarget(validation.targets);

  const outMean = tf.tensor1d(normalization.outputMean);
  const outStd = tf.tensor1d(normalization.outputStd);
  const mlp = createMlp(INPUT_SIZE, OUTPUT_SIZE, o.seed);
  const optimizer = tf.train.adam(o.learningRate);
  const vars = trainableVariables(mlp);

  const batchTensors = (
    rows: number[] | null,
    start: number,
    end: number,
    raw: Float32Array,
    xNorm: Float32Array,
    yNorm: Float32Array,
  ): [tf.Tensor2D, tf.Tensor2D, tf.Tensor2D] => {
    const pick = (src: Float32Array, w: number): Float32Array =>
      rows ? gather(src, w, rows.slice(start, end)) : src.subarray(start * w, end * w);
    const m = end - start;
    return [
      tf.tensor2d(pick(raw, INPUT_SIZE), [m, INPUT_SIZE]),
      tf.tensor2d(pick(xNorm, INPUT_SIZE), [m, INPUT_SIZE]),
      tf.tensor2d(pick(yNorm, OUTPUT_SIZE), [m, OUTPUT_SIZE]),
    ];
  };

  const evaluateValidation = (): { loss: number; mse: number; penetration: number } => {
    let loss = 0;
    let mse = 0;
    let pen = 0;
    const chunk = 2048;
    for (let s = 0; s < validationCount; s += chunk) {
      const e = Math.min(validationCount, s + chunk);
      const [raw, x, y] = batchTensors(null, s, e, valIn, valInNorm, valOutNorm);
      const terms = tf.tidy(() => {
        const t = trainingLoss(forward(mlp, x), y, raw, outMean, outStd, geometry, dt, o.penetrationWeight);
        return [t.total.dataSync()[0]!, t.mse.dataSync()[0]!, t.penetration.dataSync()[0]!];
      });
      tf.dispose([raw, x, y]);
      loss += terms[0]! * (e - s);
      mse += terms[1]! * (e - s);
      pen += terms[2]! * (e - s);
    }
    return { loss: loss / validationCount, mse: mse / validationCount, penetration: pen / validationCount };
  };

  const history: EpochRecord[] = [];
  let best = Infinity;
  let bestEpoch = 0;
  let bestWeights = exportWeights(mlp);
  let stoppedBy: TrainResult['stoppedBy'] = 'epochs';
  const rows = Array.from({ length: training.count }, (_, i) => i);
  for (let epoch = 1; epoch <= o.epochs; epoch++) {
    shuffle(rng, rows);
    let sum = 0;
    for (let s = 0; s < rows.length; s += o.batchSize) {
      const e = Math.min(rows.length, s + o.batchSize);
      const [raw, x, y] = batchTensors(rows, s, e, trainIn, trainInNorm, trainOutNorm);
      const cost = optimizer.minimize(
        () => trainingLoss(forward(mlp, x), y, raw, outMean, outStd, geometry, dt, o.penetrationWeight).total,
        true,
        vars,
      );
      sum += cost!.dataSync()[0]! * (e - s);
      tf.dispose([raw, x, y, cost!]);
    }
    const val = evaluateValidation();
    const record: EpochRecord = {
      epoch,
      trainLoss: sum / rows.length,
      valLoss: val.loss,
      valMse: val.mse,
      valPenetration: val.penetration,
      seconds: monotonicSeconds() - t0,
    };
    history.push(record);
    if (val.loss < best) {
      best = val.loss;
      bestEpoch = epoch;
      bestWeights = exportWeights(mlp);
    }
    o.onEpoch?.(record, bestEpoch);
    // Let progress output and signals through between epochs.
    await new Promise((r) => setImmediate(r));
    if (epoch - bestEpoch >= o.patience) {
      stoppedBy = 'early-stopping';
      break;
    }
    if (o.maxDuration !== null && record.seconds >= o.maxDuration) {
      stoppedBy = epoch === o.epochs ? 'epochs' : 'time';
      break;
    }
  }
  assignWeights(mlp, bestWeights);
  optimizer.dispose();
  tf.dispose([outMean, outStd]);
  return {
    mlp,
    normalization,
    history,
    bestEpoch,
    stoppedBy,
    trainCount: training.count,
    validationCount,
    seconds: monotonicSeconds() - t0,
  };
}
