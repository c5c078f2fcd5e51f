/**
 * `npm run bench -- NAME [args]`: runs one benchmark suite (or all of them with no name).
 * Each suite prints tables and writes bench/results/NAME.json.
 */
const suites: Record<string, () => Promise<{ run(args: string[]): Promise<void> }>> = {
  physics: () => import('./physics'),
  planner: () => import('./planner'),
  parareal: () => import('./parareal'),
  'parareal-crossover': () => import('./parareal-crossover'),
  mocap: () => import('./mocap'),
  robot: () => import('./robot'),
  logs: () => import('./logs'),
  learned: () => import('./learned'),
  console: () => import('./console'),
  'dry-runs': () => import('./dry-runs'),
  'first-step': () => import('./first-step'),
  safety: () => import('./safety'),
  'dry-run-soak': () => import('./dry-run-soak'),
  noise: () => import('./noise'),
  'physics-lab': () => import('./physics-lab'),
  'physics-fit': () => import('./physics-fit'),
};

const [suiteName, ...suiteArgs] = process.argv.slice(2);
for (const n of suiteName ? [suiteName] : Object.keys(suites)) {
  const load = suites[n];
  if (!load) {
    console.error(`unknown benchmark "${n}"; available: ${Object.keys(suites).join(', ')}`);
    process.exit(2);
  }
  await (await load()).run(suiteArgs);
}

export {};
