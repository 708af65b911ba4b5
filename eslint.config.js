// @ts-check
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  { ignores: ['dist/', 'docs/api/', 'node_modules/', 'coverage/', 'bench/.build/', '.build/'] },
  js.configs.recommended,
  tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['eslint.config.js'] }, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      // A named interface over one generic type (BankChannel over the internal ThirdPartyChannel)
      // gives the public API its own documented name without exporting the generic one.
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'with-single-extends' }],
    },
  },
  {
    files: ['src/**'],
    rules: {
      // The named `z` export is a namespace object that bundlers must keep whole: it pulls all of
      // zod, every locale included, into a user's bundle (about 100 KB gzipped instead of 38 KB;
      // bench/RESULTS.md). `import * as z` lets them drop what payorch does not use.
      'no-restricted-syntax': [
        'error',
        {
          selector: "ImportDeclaration[source.value='zod'][importKind='value'] > ImportSpecifier[imported.name='z']",
          message: "Write `import * as z from 'zod'`: the named z export defeats tree shaking (bench/RESULTS.md).",
        },
      ],
    },
  },
  {
    // Plain JavaScript that every runtime runs as it is (test/runtimes): linted without types.
    files: ['**/*.mjs', '**/*.cjs', 'test/runtimes/edge/next/**/*.js'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: {
      globals: { console: 'readonly', process: 'readonly', Buffer: 'readonly', URL: 'readonly', AbortController: 'readonly', AggregateError: 'readonly', fetch: 'readonly', Response: 'readonly', addEventListener: 'readonly' },
    },
  },
  {
    files: ['test/**', 'bench/**', 'examples/**'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
    },
  },
);
