// @ts-check
/**
 * ESLint over the whole repository (`npm run lint`): ESLint's recommended rules and
 * typescript-eslint's type-checked ones, which read each file's types through the TypeScript
 * project it belongs to (tsconfig.json lists them), and the rules of hooks for the React code.
 * Formatting is Prettier's (`npm run format:check`), not ESLint's.
 *
 * JavaScript rather than eslint.config.ts: ESLint loads a TypeScript config only through an extra
 * package (jiti) or an unstable flag, and editors' ESLint integrations would need the same.
 */
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  // What is built or generated, not written (ESLint does not read .gitignore).
  { ignores: ['**/dist/', 'dist-ab/', 'coverage/', 'tests/generated/', '.readme-example-*/'] },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // `import { type X }` where a module gives values too, `import type` where it gives only types.
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      // `const { left, ...kept } = row` names what it leaves out of a copy.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
    },
  },
  {
    files: ['client/src/react/**/*.{ts,tsx}', 'console/src/**/*.{ts,tsx}'],
    extends: [reactHooks.configs.flat.recommended],
  },
  // Tests and benchmarks read JSON answers of unknown shape (restCall's body is untyped, as is
  // what a benchmark fetches): the rules against `any` would ask for a type at every read, and
  // the tests' assertions are the check on those values. Every other rule stays on for them; the
  // service's code (server/, shared/, migrations/) keeps all of them.
  {
    files: ['tests/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  // This file is in no TypeScript project: the rules that need types are off for it.
  { files: ['**/*.js'], extends: [tseslint.configs.disableTypeChecked] },
);
