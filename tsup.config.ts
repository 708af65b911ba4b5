import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    // The sandbox is its own entry (payorch/sandbox), so that the SDK never loads it.
    'sandbox/index': 'src/sandbox/index.ts',
    // The `payorch` command (package.json bin); src/cli.ts starts with its shebang.
    cli: 'src/cli.ts',
    // SHA-256 for the `#hash` import, chosen by package.json `imports` conditions: node:crypto
    // where it exists, pure JS on edge runtimes (docs/decisions.md). Kept external so the choice
    // is made where the package runs or is bundled, not here.
    'hash/node': 'src/core/hash/node.ts',
    'hash/web': 'src/core/hash/web.ts',
  },
  external: ['#hash'],
  format: ['esm', 'cjs'],
  target: 'node20',
  platform: 'neutral',
  // TypeScript 6 deprecates `baseUrl`, which tsup 8's dts build sets internally (TS5101).
  dts: { entry: { index: 'src/index.ts', 'sandbox/index': 'src/sandbox/index.ts' }, compilerOptions: { ignoreDeprecations: '6.0' } },
  sourcemap: true,
  clean: true,
  treeshake: true,
});
