// ESLint (flat config): the recommended JavaScript and typescript-eslint rules, plus the
// type-aware promise rules, with the exceptions below, each with its reason. Formatting is
// Prettier's (.prettierrc.json); no rule here is about layout.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const DB_DRIVER = 'Import Database from src/upstream/db/index.js: it picks the SQLite driver for the running Node.';

export default tseslint.config(
  // Generated code (Relay artifacts, Codegen's gql/) is the tools' own, and the example app lints with its own setup.
  { ignores: ['dist/', 'node_modules/', 'coverage/', '**/__generated__/', 'docs/recipes/codegen/gql/', 'examples/', 'test-output/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Upstream JSON and GraphQL results are untyped at the seams; issue 22 bounds the number of
      // `any` in src, rather than failing on each one.
      '@typescript-eslint/no-explicit-any': 'off',
      // `_`-prefixed names are unused on purpose (interface-shaped parameters, skipped items).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      // `cond && fn()` and `a ? f() : g()` are used as statements on purpose.
      '@typescript-eslint/no-unused-expressions': ['error', { allowShortCircuit: true, allowTernary: true }],
      // Pothos plugins augment `PothosSchemaTypes` with `declare global { namespace … }`.
      '@typescript-eslint/no-namespace': ['error', { allowDeclarations: true }],
      // A rethrow keeps what it caught as its `cause`.
      'preserve-caught-error': 'error',
      // better-sqlite3 13 needs Node-API 10; Node 20 runs the 12.x alias (src/upstream/db/index.ts).
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'better-sqlite3', message: DB_DRIVER, allowTypeImports: true },
            { name: 'better-sqlite3-12', message: DB_DRIVER },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.ts', '**/*.mts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // A promise nobody awaits loses its rejection (an unhandled rejection stops the process).
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      // An async function where a callback's result is ignored is fine for Node's listeners
      // (`createServer(async (req, res) => …)`, `process.once('SIGTERM', async …)`): they handle
      // their own errors. Conditions and spreads of promises stay errors.
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
    },
  },
);
