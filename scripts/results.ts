/**
 * `npm run results`: regenerates docs/results.md, the README's results table and the cost tables
 * of docs/cluster.md from the committed experiments (src-main/experiments/results-page.ts), and
 * where Parareal pays from the crossover bench (src-main/experiments/crossover-page.ts), and the
 * bench figures of the areas' pages (src-main/experiments/bench-blocks.ts). With
 * --check it writes nothing and exits 1 when a committed file differs from what it would write.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatedResults } from '../src-main/experiments/results-page';
import { crossoverFiles } from '../src-main/experiments/crossover-page';
import { benchBlockFiles } from '../src-main/experiments/bench-blocks';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const check = process.argv.includes('--check');
let differs = false;
const results = generatedResults(root);
// The Parareal crossover's blocks and chart, from its own bench, on top of the results' README.
const withCrossover = { ...results, ...crossoverFiles(root, results['README.md']) };
// The bench figures of the areas' pages, on top of what the generators above wrote of them.
const files = { ...withCrossover, ...benchBlockFiles(root, withCrossover) };
for (const [file, text] of Object.entries(files)) {
  const target = path.join(root, file);
  if (existsSync(target) && readFileSync(target, 'utf8') === text) continue;
  if (check) {
    process.stderr.write(`${file} differs from the generated results: run npm run results\n`);
    differs = true;
  } else {
    writeFileSync(target, text);
    process.stdout.write(`wrote ${file}\n`);
  }
}
if (differs) process.exitCode = 1;
