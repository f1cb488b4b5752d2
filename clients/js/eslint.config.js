// eslint (make js-test, --max-warnings 0): the recommended rules over the
// client, its helpers and its tests, plus a few that keep the code plain:
// === only, const where nothing reassigns, no var.  The .d.ts files are
// checked by tsc (test/package.test.js), the generated ones not at all.
import js from '@eslint/js';
import globals from 'globals';

export default [
  { ignores: ['node_modules/', 'gen/', 'types/', '**/*.ts'] },
  js.configs.recommended,
  {
    files: ['**/*.js'],
    languageOptions: {
      ecmaVersion: 2024,
      sourceType: 'module',
      globals: { ...globals.browser, ...globals.node },
    },
    rules: {
      eqeqeq: ['error', 'always'],
      'prefer-const': 'error',
      'no-var': 'error',
      'no-unused-vars': ['error', { argsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
];
