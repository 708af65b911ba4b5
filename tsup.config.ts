import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    // The sandbox is its own entry (payorch/sandbox), so that the SDK never loads it.
    'sandbox/index': 'src/sandbox/index.ts',
    // The PostgreSQL inbox (payorch/postgres): only its users need `pg`, an optional peer.
    'postgres/index': 'src/postgres/index.ts',
    // The `payorch` command (package.json bin); src/cli.ts starts with its shebang.
    cli: 'src/cli.ts',
  },
  format: ['esm', 'cjs'],
  target: 'node20',
  platform: 'neutral',
  // TypeScript 6 deprecates `baseUrl`, which tsup 8's dts build sets internally (TS5101).
  dts: { entry: { index: 'src/index.ts', 'sandbox/index': 'src/sandbox/index.ts', 'postgres/index': 'src/postgres/index.ts' }, compilerOptions: { ignoreDeprecations: '6.0' } },
  sourcemap: true,
  clean: true,
  treeshake: true,
});
