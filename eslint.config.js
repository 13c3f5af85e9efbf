import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'clients/*/dist/', 'node_modules/', 'data/', 'coverage/', 'bench/results/', '.cache/', '.scratch/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  { languageOptions: { globals: { ...globals.node } } },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': ['error', { allow: ['error'] }],
    },
  },
  {
    // Fixture scripts run in the page under test, not in Node.
    files: ['test/fixtures/**/*.js', 'bench/fixtures/**/*.js', 'src/dashboard/static/**/*.js'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['src/cli/**', 'bench/**', 'scripts/**', 'test/**', 'bin/**'],
    rules: { 'no-console': 'off' },
  },
);
