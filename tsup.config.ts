import { defineConfig } from 'tsup';

export default defineConfig([
  {
    entry: {
      index: 'src/index.ts',
      // The sandbox is its own entry (payorch/sandbox), so that the SDK never loads it.
      'sandbox/index': 'src/sandbox/index.ts',
      // The PostgreSQL inbox (payorch/postgres): only its users need `pg`, an optional peer.
      'postgres/index': 'src/postgres/index.ts',
      // The Cloudflare inboxes (payorch/d1, payorch/durable-object): loaded only by their users.
      'd1/index': 'src/d1/index.ts',
      'durable-object/index': 'src/durable-object/index.ts',
      // The inbox contract (payorch/testing), for tests of an inbox of one's own.
      'testing/index': 'src/testing/index.ts',
      // Receiving callbacks only (payorch/webhooks): the same modules as payorch's, in shared
      // chunks, without ky or zod.
      'webhooks/index': 'src/webhooks/index.ts',
      // The zod schemas as values (payorch/schemas); payorch exports their types only.
      'schemas/index': 'src/schemas/index.ts',
      // SHA-256 for the `#hash` import, chosen by package.json `imports` conditions: node:crypto
      // where it exists, pure JS on edge runtimes (docs/decisions.md). Kept external so the choice
      // is made where the package runs or is bundled, not here.
      'hash/node': 'src/internal/hash/node.ts',
      'hash/web': 'src/internal/hash/web.ts',
    },
    external: ['#hash'],
    format: ['esm', 'cjs'],
    target: 'node20',
    platform: 'neutral',
    // TypeScript 6 deprecates `baseUrl`, which tsup 8's dts build sets internally (TS5101).
    dts: {
      entry: {
        index: 'src/index.ts',
        'sandbox/index': 'src/sandbox/index.ts',
        'postgres/index': 'src/postgres/index.ts',
        'd1/index': 'src/d1/index.ts',
        'durable-object/index': 'src/durable-object/index.ts',
        'testing/index': 'src/testing/index.ts',
        'webhooks/index': 'src/webhooks/index.ts',
        'schemas/index': 'src/schemas/index.ts',
      },
      compilerOptions: { ignoreDeprecations: '6.0' },
    },
    // No source maps in the package: the output is not minified, so stack traces already point at
    // readable code, and maps (with the sources inlined) would double what users install.
    sourcemap: false,
    clean: true,
    // Code splitting for CommonJS too (tsup splits ESM only by default): payorch/sandbox and
    // payorch/postgres then require the chunk that holds the SDK instead of inlining their own
    // copy, so a CommonJS app loading two entries runs one SDK (one set of error classes, one zod).
    splitting: true,
    treeshake: true,
    // zod's runtime is bundled, tree-shaken: `import('zod')` evaluates about 95 files (every locale
    // included), most of payorch's cold start (bench/RESULTS.md, docs/decisions.md). zod stays a
    // dependency for the type declarations, which import its types. ky stays external.
    noExternal: ['zod'],
  },
  {
    // The `payorch` command (package.json bin), ESM only: nothing requires it. src/cli/index.ts
    // starts with its shebang; each command is its own chunk, loaded when it runs.
    entry: { cli: 'src/cli/index.ts' },
    external: ['#hash'],
    format: ['esm'],
    target: 'node20',
    platform: 'node',
    sourcemap: false,
    treeshake: true,
    esbuildOptions(options) {
      options.chunkNames = 'cli/[name]-[hash]';
    },
  },
]);
