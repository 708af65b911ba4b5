import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    // The sandbox is its own entry (payorch/sandbox), so that the SDK never loads it.
    'sandbox/index': 'src/sandbox/index.ts',
    // The `payorch` command (package.json bin); src/cli.ts starts with its shebang.
    cli: 'src/cli.ts',
  },
  format: ['esm', 'cjs'],
  target: 'node20',
  platform: 'neutral',
  // TypeScript 6 deprecates `baseUrl`, which tsup 8's dts build sets internally (TS5101).
  dts: { entry: { index: 'src/index.ts', 'sandbox/index': 'src/sandbox/index.ts' }, compilerOptions: { ignoreDeprecations: '6.0' } },
  sourcemap: true,
  clean: true,
  treeshake: true,
  // zod's runtime is bundled, tree-shaken: `import('zod')` evaluates about 95 files (every locale
  // included), most of payorch's cold start (bench/RESULTS.md, docs/decisions.md). zod stays a
  // dependency for the type declarations, which import its types. ky stays external.
  noExternal: ['zod'],
});
