/**
 * `npm run bench -- NAME [args]`: runs one benchmark suite (or all of them with no name).
 * Each suite prints tables and writes bench/results/NAME.json.
 */
const suites: Record<string, () => Promise<{ run(args: string[]): Promise<void> }>> = {
  physics: () => import('./physics'),
};

const [name, ...args] = process.argv.slice(2);
const names = name ? [name] : Object.keys(suites);
for (const n of names) {
  const load = suites[n];
  if (!load) {
    console.error(`unknown benchmark "${n}"; available: ${Object.keys(suites).join(', ')}`);
    process.exit(2);
  }
  await (await load()).run(args);
}
