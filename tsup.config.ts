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
  // No source maps in the package: the output is not minified, so stack traces already point at
  // readable code, and maps (with the sources inlined) would double what users install.
  sourcemap: false,
  clean: true,
  treeshake: true,
  // The CLI runs as ESM only (package.json bin). tsup builds every entry in both formats; the
  // CommonJS build does not split chunks, so its CLI file is self-contained and nothing else needs it.
  onSuccess: async () => {
    const { rm } = await import('node:fs/promises');
    await rm('dist/cli.cjs', { force: true });
  },
});
