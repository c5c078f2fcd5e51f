/**
 * Property tests draw from one fixed seed so a CI run never fails on a new random draw; a failure
 * is then reproducible by anyone. `npm run test:properties` runs them with fresh seeds (set
 * FC_SEED=random, or a number to replay a reported one), which is how developers hunt for new
 * counterexamples.
 */
import fc from 'fast-check';

const FIXED_SEED = 20261123;
const requested = process.env.FC_SEED;
const seed =
  requested === 'random' ? (Date.now() ^ (Math.random() * 0x7fffffff)) | 0 : Number(requested ?? FIXED_SEED);
if (requested !== undefined) process.stdout.write(`fast-check seed ${seed}\n`);
fc.configureGlobal({ seed });
