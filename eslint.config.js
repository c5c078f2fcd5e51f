import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import svelte from 'eslint-plugin-svelte';
import globals from 'globals';

/**
 * The layers of src-main (docs/architecture.md): each folder may import only the folders listed
 * for it (and itself). Lower layers never reach up: protocol clients know nothing of runs, the
 * planner nothing of the console, and no real client imports the virtual lab.
 */
const LAYERS = {
  contract: [],
  common: ['contract'],
  calibration: ['contract', 'common'],
  mocap: ['contract', 'common', 'calibration'],
  robot: ['contract', 'common', 'calibration'],
  setup: ['contract', 'common', 'calibration', 'mocap', 'robot'],
  safety: ['contract', 'common', 'calibration', 'mocap', 'robot', 'setup'],
  parareal: ['contract', 'common', 'src-workers'],
  learned: ['contract', 'common', 'parareal', 'src-workers'],
  planning: ['contract', 'common', 'parareal', 'learned', 'src-workers'],
  session: ['contract', 'common', 'calibration', 'mocap', 'robot', 'setup', 'safety', 'parareal', 'planning'],
  lab: ['contract', 'common', 'calibration', 'mocap', 'robot', 'setup', 'src-workers'],
  run: [
    'contract',
    'common',
    'calibration',
    'mocap',
    'robot',
    'setup',
    'safety',
    'parareal',
    'learned',
    'planning',
    'session',
  ],
  // An experiment's runs are recorded by the run's recorder (run/recorded-run.ts).
  experiments: ['contract', 'common', 'parareal', 'learned', 'planning', 'run', 'src-workers'],
};
const MAIN_FOLDERS = [...Object.keys(LAYERS), 'console', 'cli', 'shell'];

/** Every main-process folder but the contract (gitignore patterns cannot re-include below an excluded folder). */
const nonContract = MAIN_FOLDERS.filter((f) => f !== 'contract').flatMap((f) => [
  `**/src-main/${f}`,
  `**/src-main/${f}/**`,
]);

/** One no-restricted-imports block per layered folder: every folder it may not import. */
const layerRules = Object.entries(LAYERS).map(([folder, allowed]) => {
  const forbidden = [...MAIN_FOLDERS, 'src-workers', 'src-renderer'].filter(
    (f) => f !== folder && !allowed.includes(f),
  );
  return {
    files: [`src-main/${folder}/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: forbidden.flatMap((f) => [`**/${f}`, `**/${f}/**`]),
              message: `src-main/${folder} may import only ${allowed.join(', ') || 'nothing of ours'} (layers: docs/architecture.md)`,
            },
          ],
        },
      ],
    },
  };
});

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
  ...layerRules,
  {
    // The renderer runs in a browser page: the shared contract only, no Node, no main-process code.
    files: ['src-renderer/src/**/*.ts', 'src-renderer/src/**/*.svelte'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [...nonContract, '**/src-workers/**'],
              message: 'the renderer may import only src-main/contract (layers: docs/architecture.md)',
            },
            { group: ['node:*'], message: 'the renderer runs in a browser page: no Node modules' },
          ],
        },
      ],
    },
  },
  {
    // Workers run MuJoCo and nothing else: the contract and their physics.
    files: ['src-workers/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: nonContract,
              message: 'workers may import only src-main/contract (layers: docs/architecture.md)',
            },
          ],
        },
      ],
    },
  },
);
