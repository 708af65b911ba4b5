import { dirname, relative, resolve } from 'node:path';
import { defineConfig } from 'tsup';
import type { Options } from 'tsup';

type EsbuildPlugin = NonNullable<Options['esbuildPlugins']>[number];
type TsupPlugin = NonNullable<Options['plugins']>[number];

// payorch/webhooks is one file: a receiver's cold start then loads one module, not the seven that
// code splitting cut it into. It also holds the package's only copy of the error classes
// (src/errors/error.ts), so that an error from any entry is `instanceof` the class of every other:
// the other entries import those classes, and everything payorch/webhooks exports, from that file.
// What else they share with it (stateless helpers) they carry as copies of their own.
const WEBHOOKS_SOURCES = new Set(['src/webhooks/index.ts', 'src/errors/error.ts'].map((file) => resolve(file)));
// The specifier those imports leave the bundler with, made relative to each output file below.
const WEBHOOKS_PLACEHOLDER = 'payorch:webhooks-entry';

const importWebhooksEntry: EsbuildPlugin = {
  name: 'import-webhooks-entry',
  setup(build) {
    build.onResolve({ filter: /^\.\.?\// }, (args) => {
      const target = resolve(args.resolveDir, args.path).replace(/\.js$/, '.ts');
      return WEBHOOKS_SOURCES.has(target) ? { path: WEBHOOKS_PLACEHOLDER, external: true } : undefined;
    });
  },
};

const linkWebhooksEntry: TsupPlugin = {
  name: 'link-webhooks-entry',
  renderChunk(code, chunk) {
    if (!code.includes(WEBHOOKS_PLACEHOLDER)) return undefined;
    const file = resolve('dist/webhooks', this.format === 'cjs' ? 'index.cjs' : 'index.js');
    const path = relative(dirname(chunk.path), file).replaceAll('\\', '/');
    return { code: code.replaceAll(WEBHOOKS_PLACEHOLDER, path.startsWith('.') ? path : `./${path}`) };
  },
};

export default defineConfig([
  {
    // See WEBHOOKS_SOURCES. No code splitting: everything it needs is inlined.
    entry: { 'webhooks/index': 'src/webhooks/index.ts' },
    format: ['esm', 'cjs'],
    target: 'node20',
    platform: 'neutral',
    // Its declarations come with the other entries' below, which share their type chunks.
    dts: false,
    sourcemap: false,
    splitting: false,
    treeshake: true,
  },
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
      // The zod schemas as values (payorch/schemas); payorch exports their types only.
      'schemas/index': 'src/schemas/index.ts',
    },
    esbuildPlugins: [importWebhooksEntry],
    plugins: [linkWebhooksEntry],
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
