/**
 * Screenshots checked against committed reference PNGs (test/e2e/reference/), pixel by pixel with
 * pixelmatch. The tolerance survives font antialiasing and sub-pixel jitter: pixelmatch ignores
 * pixels it detects as antialiased, a pixel counts only when its colour moved by more than
 * `threshold` (pixelmatch's YIQ distance, 0..1), and a view passes while at most `maxDiffRatio` of
 * its pixels count. What is drawn in the wrong place, colour or size fails.
 *
 * PARAPUSH_UPDATE_REFERENCES=1 rewrites the references from this run's screenshots instead of
 * comparing (after a deliberate change of the drawing; look at them before committing). On a
 * mismatch the screenshot and a diff image (differing pixels red) go to
 * test-artifacts/reference-diffs/.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';

export const referenceDir = path.resolve('test/e2e/reference');
const diffDir = path.resolve('test-artifacts/reference-diffs');
export const updateReferences = process.env.PARAPUSH_UPDATE_REFERENCES === '1';

export interface ImageTolerance {
  /** Colour distance below which a pixel is the same (pixelmatch's threshold, 0..1). */
  threshold: number;
  /** Largest share of the image's pixels that may differ. */
  maxDiffRatio: number;
}

export const DEFAULT_TOLERANCE: ImageTolerance = { threshold: 0.1, maxDiffRatio: 0.005 };

/** How a screenshot compares with its reference; `problem` is null when it matches (or was written). */
export interface ReferenceCheck {
  problem: string | null;
  differing: number;
  total: number;
}

/**
 * Compares a PNG screenshot with test/e2e/reference/NAME.png, or (PARAPUSH_UPDATE_REFERENCES=1)
 * writes it there. A missing reference is a problem that says how to make one.
 */
export function checkAgainstReference(
  name: string,
  screenshot: Buffer,
  tolerance: ImageTolerance = DEFAULT_TOLERANCE,
): ReferenceCheck {
  const file = path.join(referenceDir, `${name}.png`);
  const actual = PNG.sync.read(screenshot);
  const total = actual.width * actual.height;
  if (updateReferences) {
    mkdirSync(referenceDir, { recursive: true });
    writeFileSync(file, screenshot);
    return { problem: null, differing: 0, total };
  }
  let expected: PNG;
  try {
    expected = PNG.sync.read(readFileSync(file));
  } catch (err) {
    return {
      problem: `no reference image ${file} (${(err as Error).message}): run with PARAPUSH_UPDATE_REFERENCES=1 to write it`,
      differing: total,
      total,
    };
  }
  if (expected.width !== actual.width || expected.height !== actual.height) {
    keep(name, screenshot, null);
    return {
      problem: `${name}: ${actual.width}x${actual.height} px, the reference is ${expected.width}x${expected.height}`,
      differing: total,
      total,
    };
  }
  const diff = new PNG({ width: actual.width, height: actual.height });
  const differing = pixelmatch(expected.data, actual.data, diff.data, actual.width, actual.height, {
    threshold: tolerance.threshold,
  });
  if (differing <= tolerance.maxDiffRatio * total) return { problem: null, differing, total };
  keep(name, screenshot, diff);
  return {
    problem:
      `${name}: ${differing} of ${total} pixels differ from the reference (at most ` +
      `${Math.floor(tolerance.maxDiffRatio * total)}); see ${path.relative(process.cwd(), diffDir)}/${name}.*.png`,
    differing,
    total,
  };
}

/** Keeps the screenshot and the diff of a mismatch for a look by eye. */
function keep(name: string, screenshot: Buffer, diff: PNG | null): void {
  mkdirSync(diffDir, { recursive: true });
  writeFileSync(path.join(diffDir, `${name}.actual.png`), screenshot);
  if (diff) writeFileSync(path.join(diffDir, `${name}.diff.png`), PNG.sync.write(diff));
}
