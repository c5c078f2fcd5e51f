import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import svelte from 'eslint-plugin-svelte';
import globals from 'globals';

/**
 * The layers (docs/architecture.md): each folder may import only the folders listed for it (and
 * itself). Lower layers never reach up: protocol clients know nothing of runs, the planner nothing
 * of the console, and no real client imports the virtual lab. The folders of src-shared are
 * imported through their package.json "imports" alias (`#contract/...`) from anywhere, by main,
 * workers and renderer alike.
 */
const SHARED = {
  contract: [],
  // The physics library: the MuJoCo fine model in the workers, the coarse model and geometry in main.
  physics: ['contract'],
};
const LAYERS = {
  common: ['contract'],
  calibration: ['contract', 'common'],
  mocap: ['contract', 'common', 'calibration'],
  robot: ['contract', 'common', 'calibration'],
  safety: ['contract', 'common', 'calibration', 'mocap', 'robot'],
  parareal: ['contract', 'common', 'physics'],
  learned: ['contract', 'common', 'parareal', 'physics'],
  planning: ['contract', 'common', 'parareal', 'learned', 'physics'],
  session: ['contract', 'common', 'calibration', 'mocap', 'robot', 'safety', 'parareal', 'planning'],
  'virtual-lab': ['contract', 'common', 'calibration', 'mocap', 'robot', 'physics'],
  // The link to a lab, real or virtual (it starts a virtual one on loopback), and the console's one connection to it.
  'lab-link': ['contract', 'common', 'calibration', 'mocap', 'robot', 'safety', 'virtual-lab'],
  run: [
    'contract',
    'common',
    'calibration',
    'mocap',
    'robot',
    'safety',
    'parareal',
    'learned',
    'planning',
    'session',
    'lab-link',
  ],
  // An experiment's runs are recorded by the run's recorder (run/recorded-run.ts).
  experiments: ['contract', 'common', 'parareal', 'learned', 'planning', 'run', 'physics'],
  // Prediction error and physics fits from session logs (the experiments' progress and statistics).
  'lab-physics': ['contract', 'common', 'physics', 'parareal', 'session', 'experiments'],
  // The identification run: probing pushes through the supervised run, then a fit.
  'physics-probe': [
    'contract',
    'common',
    'physics',
    'calibration',
    'parareal',
    'planning',
    'session',
    'run',
    'lab-physics',
  ],
};
const MAIN_FOLDERS = [...Object.keys(LAYERS), 'console', 'cli', 'shell'];

/** Import patterns that name `folder`: a shared folder by its alias, any other by its name. */
const patternsOf = (folder) =>
  folder in SHARED ? [`#${folder}`, `#${folder}/**`] : [`**/${folder}`, `**/${folder}/**`];

/** A shared folder is named by its alias, never by a relative path into src-shared. */
const VIA_ALIAS = {
  group: ['**/src-shared', '**/src-shared/**'],
  message: 'import src-shared through its alias, e.g. #contract/scene (package.json "imports")',
};

/** A no-restricted-imports block: `files` may not import what `group` matches. */
const restrictImports = (files, group, message, extra = []) => ({
  files,
  rules: {
    'no-restricted-imports': [
      'error',
      { patterns: [...(group.length ? [{ group, message }] : []), VIA_ALIAS, ...extra] },
    ],
  },
});

/** One no-restricted-imports block per layered folder: every folder it may not import. */
const everyFolder = [...Object.keys(SHARED), ...MAIN_FOLDERS, 'src-workers', 'src-renderer'];
const layerRules = [
  ...Object.entries(SHARED).map(([folder, allowed]) =>
    restrictImports(
      [`src-shared/${folder}/**/*.ts`],
      everyFolder.filter((f) => f !== folder && !allowed.includes(f)).flatMap(patternsOf),
      `src-shared/${folder} may import only ${allowed.join(', ') || 'nothing of ours'} (layers: docs/architecture.md)`,
    ),
  ),
  ...Object.entries(LAYERS).map(([folder, allowed]) =>
    restrictImports(
      [`src-main/${folder}/**/*.ts`],
      everyFolder.filter((f) => f !== folder && !allowed.includes(f)).flatMap(patternsOf),
      `src-main/${folder} may import only ${allowed.join(', ')} (layers: docs/architecture.md)`,
    ),
  ),
];

/**
 * Seconds in every name (docs/architecture.md, "Units"): a time is held in s and named for what it
 * is (`timeout`, `staleAfter`), its unit in the doc comment; milliseconds exist only where a Node
 * or DOM timer is set (common/timers.ts). A declared name ending in a unit fails: Ms, Millis,
 * Milliseconds, Seconds, Secs, Sec, a camelCase S (`ageS`) and the UPPER_CASE forms (`_MS`, `_S`,
 * `_SEC`, `_SECONDS`). Reading another API's property (`stat.mtimeMs`) declares nothing and passes.
 */
const UNIT_SUFFIX = '(Ms|Millis|Milliseconds|Seconds|Secs|Sec|[a-z0-9]S|_MS|_MILLIS|_S|_SEC|_SECS|_SECONDS)$';
/**
 * Exempt: the clocks; names fixed by a document or a committed file: NatNet 4.1's precision
 * timestamp seconds, the learned model card's and dataset manifest's generationSeconds (their
 * files' hashes are recorded by the committed experiments), and the old names of a lab config's
 * and a session log's fields that are refused or converted (latencyMs, ageMs).
 */
const EXEMPT = '^(monotonicSeconds|wallSeconds|precisionSeconds|generationSeconds|latencyMs|ageMs)$';
const unitsInNames = {
  files: ['src-*/**/*.ts', 'src-*/**/*.svelte', 'bench/**/*.ts', 'scripts/**/*.ts', 'test/**/*.ts'],
  rules: {
    '@typescript-eslint/naming-convention': [
      'error',
      {
        selector: 'default',
        format: null,
        filter: { regex: EXEMPT, match: false },
        custom: { regex: UNIT_SUFFIX, match: false },
      },
    ],
  },
};

/**
 * One monotonic clock (src-main/common/clock.ts, hrtime: one origin in every thread) and one wall
 * clock (contract/time.ts): nothing else reads a clock, so no stamp or stopwatch of one origin
 * meets another's. The fine worker, a process of its own that may import only the contract and
 * the physics, times its jobs with its own performance.now(): a duration it reports in s, never a
 * stamp compared with another.
 */
const CLOCK = 'read time through src-main/common/clock.ts (monotonic) or contract/time.ts (wall)';
const oneClock = {
  files: ['src-*/**/*.ts', 'src-*/**/*.svelte'],
  ignores: ['src-main/common/clock.ts', 'src-shared/contract/time.ts', 'src-workers/fine-worker.ts'],
  rules: {
    'no-restricted-properties': [
      'error',
      { object: 'performance', property: 'now', message: CLOCK },
      { object: 'Date', property: 'now', message: CLOCK },
      { object: 'process', property: 'hrtime', message: CLOCK },
    ],
  },
};

export default tseslint.config(
  { ignores: ['node_modules', 'out', 'dist', 'test-artifacts', 'bench/results'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...svelte.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['**/*.svelte', '**/*.svelte.ts'],
    languageOptions: { parserOptions: { parser: tseslint.parser } },
  },
  restrictImports(['**/*.ts', '**/*.svelte'], [], ''),
  // Vite bundles its config files but leaves package imports to Node, which cannot load the .ts
  // file an alias names: the renderer's build config imports the contract by its path.
  { files: ['src-renderer/vite.config.ts'], rules: { 'no-restricted-imports': 'off' } },
  ...layerRules,
  unitsInNames,
  oneClock,
  // The renderer runs in a browser page: the shared contract only, no Node, no main-process code.
  restrictImports(
    ['src-renderer/src/**/*.ts', 'src-renderer/src/**/*.svelte'],
    [
      '**/src-main',
      '**/src-main/**',
      '**/src-workers',
      '**/src-workers/**',
      ...Object.keys(SHARED)
        .filter((f) => f !== 'contract')
        .flatMap(patternsOf),
    ],
    'the renderer may import only #contract (layers: docs/architecture.md)',
    [{ group: ['node:*'], message: 'the renderer runs in a browser page: no Node modules' }],
  ),
  // Workers run MuJoCo and nothing else: the contract and their physics.
  restrictImports(
    ['src-workers/**/*.ts'],
    ['**/src-main', '**/src-main/**', '**/src-renderer', '**/src-renderer/**'],
    'workers may import only #contract and #physics (layers: docs/architecture.md)',
  ),
);
