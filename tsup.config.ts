import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import { buildSync } from 'esbuild';
import { defineConfig } from 'tsup';
import type { Options } from 'tsup';
import { ENTRIES as PACKAGE_ENTRIES, entry } from './scripts/entries.mjs';

type EsbuildPlugin = NonNullable<Options['esbuildPlugins']>[number];
type TsupPlugin = NonNullable<Options['plugins']>[number];

// The modules payorch/webhooks is made of (errors, verification, the receiver, their helpers) are
// built first into one file, dist/webhooks/core.js, exporting every name of every one of them.
// Every entry, payorch/webhooks included, then imports them from that file instead of carrying
// them in chunks of its own. So a receiver's cold start loads two modules, not the seven that code
// splitting cut them into; the package holds one copy of the error classes, `instanceof` across
// every entry; and nothing is bundled twice.
const WEBHOOKS_ENTRY = resolve(entry('payorch/webhooks').source);
const CORE_SOURCES = new Set(
  Object.keys(buildSync({ entryPoints: [WEBHOOKS_ENTRY], bundle: true, write: false, metafile: true, platform: 'neutral', format: 'esm', logLevel: 'silent' }).metafile.inputs)
    .map((file) => resolve(file))
    .filter((file) => file !== WEBHOOKS_ENTRY),
);
// Generated, so that no list of those modules is kept by hand.
const CORE_ENTRY = resolve('node_modules/.cache/payorch-build/webhooks-core.ts');
mkdirSync(dirname(CORE_ENTRY), { recursive: true });
writeFileSync(CORE_ENTRY, [...CORE_SOURCES].map((file) => `export * from ${JSON.stringify(file)};\n`).join(''));
// The specifiers those imports (and the command's, see importLibrary) leave the bundler with, made
// relative to each output file below by linkBuilt. payorch re-exports payorch/webhooks' names from
// its built file too, so that file stays a list of names over the core rather than a chunk shared
// with payorch.
const PLACEHOLDERS = { 'payorch:webhooks-core': 'webhooks/core', 'payorch:webhooks-entry': entry('payorch/webhooks').out, 'payorch:cli-internals': 'internal/cli' } as const;

// The library's entries (payorch, payorch/sandbox, …): package.json `exports`, the one list of them
// (scripts/entries.mjs). dist/ mirrors src/, so each is built to the path `exports` names from
// the source at the same path under src/. Each is its own entry so that a program loads only what
// it imports: the SDK never loads the sandbox, an inbox or a queue adapter, nor `pg`, bullmq or
// pg-boss, which are optional peers; payorch/webhooks loads neither ky nor zod.
const ENTRIES = Object.fromEntries(PACKAGE_ENTRIES.map((each) => [each.out, each.source]));
// What the `payorch` command needs of the library that no entry exports, built with the ESM entries
// into dist/internal/cli.js so that it shares their chunks. No declarations, no `exports` path.
const CLI_INTERNALS = resolve('src/tools/cli-internals.ts');
// Every module the library is built from. The command imports them from the built files, never
// bundles a copy: see importLibrary.
const LIBRARY_SOURCES = new Set(
  Object.keys(buildSync({ entryPoints: [...Object.values(ENTRIES), CLI_INTERNALS], bundle: true, write: false, metafile: true, outdir: 'unused', platform: 'neutral', format: 'esm', packages: 'external', logLevel: 'silent' }).metafile.inputs).map((file) => resolve(file)),
);

const importCore: EsbuildPlugin = {
  name: 'import-webhooks-core',
  setup(build) {
    build.onResolve({ filter: /^\.\.?\// }, (args) => {
      if (args.kind === 'entry-point') return undefined;
      const target = resolve(args.resolveDir, args.path).replace(/\.js$/, '.ts');
      if (target === WEBHOOKS_ENTRY) return { path: 'payorch:webhooks-entry', external: true };
      return CORE_SOURCES.has(target) ? { path: 'payorch:webhooks-core', external: true } : undefined;
    });
  },
};

// The command (src/tools/cli) imports the library as a user's program does, by the package's own name
// (`payorch`, `payorch/sandbox`, …), which Node resolves through package.json `exports` to the
// built entries; the modules of dist/webhooks/core.js from there, as every entry does; and what no
// entry exports from dist/internal/cli.js. So each library module is in the package once per
// format. A module the library is built from and none of these provides stops the build rather
// than be bundled a second time; modules only the command uses (src/tools/cli, src/tools/openapi) are its own.
const importLibrary: EsbuildPlugin = {
  name: 'import-library',
  setup(build) {
    build.onResolve({ filter: /^payorch(?:\/|$)/ }, (args) => ({ path: args.path, external: true }));
    build.onResolve({ filter: /^\.\.?\// }, (args) => {
      if (args.kind === 'entry-point') return undefined;
      const target = resolve(args.resolveDir, args.path).replace(/\.js$/, '.ts');
      if (target === CLI_INTERNALS) return { path: 'payorch:cli-internals', external: true };
      if (CORE_SOURCES.has(target)) return { path: 'payorch:webhooks-core', external: true };
      if (!LIBRARY_SOURCES.has(target)) return undefined;
      const text = `${relative('.', target)} is part of the library: import it from the entry that exports it (payorch, payorch/webhooks, …), or add it to src/tools/cli-internals.ts`;
      return { errors: [{ text }] };
    });
  },
};

// `declareOptions<T>()([...])` returns its argument: it is there for the compiler. Marked pure where
// a module declares its options, so that a bundle drops the declarations of what it does not use
// (dist/webhooks/core.js holds every option table of payorch/webhooks in one file, where a
// bundler keeps any top-level call it cannot prove pure). Marks the source as written, once.
const pureDeclarations: EsbuildPlugin = {
  name: 'pure-option-declarations',
  setup(build) {
    build.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      if (!source.includes('= declareOptions<')) return undefined;
      return { contents: source.replaceAll('= declareOptions<', '= /* @__PURE__ */ declareOptions<'), loader: 'ts' };
    });
  },
};

const linkBuilt: TsupPlugin = {
  name: 'link-built-files',
  renderChunk(code, chunk) {
    let linked = code;
    for (const [placeholder, name] of Object.entries(PLACEHOLDERS)) {
      const file = resolve('dist', `${name}.${this.format === 'cjs' ? 'cjs' : 'js'}`);
      const path = relative(dirname(chunk.path), file).replaceAll('\\', '/');
      linked = linked.replaceAll(placeholder, path.startsWith('.') ? path : `./${path}`);
    }
    return linked === code ? undefined : { code: linked };
  },
};

// Not minified: Node prints the whole source line an uncaught error was thrown from, so a
// misconfiguration thrown from a minified line printed tens of KB of code before its message, and
// stack frames pointed into lines nobody could read. Minifying saved no start-up time we could
// measure (docs/decisions.md, bench/findings.md); what an import does not need is loaded later.


// The version every request names in its User-Agent (src/internal/user-agent.ts): the library runs
// where package.json cannot be read (a Worker, a bundle), so it is written in here.
const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
const VERSION = { __PAYORCH_VERSION__: JSON.stringify(version) };

// The settings of the library's builds (ESM, CommonJS, declarations).
const LIBRARY = {
  define: VERSION,
  esbuildPlugins: [pureDeclarations, importCore],
  plugins: [linkBuilt],
  target: 'node22',
  platform: 'neutral',
  // No source maps in the package: the names a stack trace shows are the source's own, and maps
  // (with the sources inlined) would double what users install.
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
} satisfies Options;

export default defineConfig([
  {
    // See CORE_SOURCES. One file, no code splitting, nothing external.
    entry: { 'webhooks/core': CORE_ENTRY },
    define: VERSION,
    esbuildPlugins: [pureDeclarations],
    format: ['esm', 'cjs'],
    target: 'node22',
    platform: 'neutral',
    // Internal: no declarations, and no path of package.json `exports` names it.
    dts: false,
    sourcemap: false,
    splitting: false,
    treeshake: true,
  },
  {
    // The ESM entries, and what the command needs of them besides (CLI_INTERNALS), in one build so
    // that they share chunks. Declarations come from the build below.
    ...LIBRARY,
    entry: { ...ENTRIES, 'internal/cli': CLI_INTERNALS },
    format: ['esm'],
  },
  // The CommonJS entries: nothing requires CLI_INTERNALS.
  { ...LIBRARY, entry: ENTRIES, format: ['cjs'] },
  {
    // Declarations of both formats, in one pass over the sources.
    ...LIBRARY,
    entry: ENTRIES,
    format: ['esm', 'cjs'],
    // TypeScript 6 deprecates `baseUrl`, which tsup 8's dts build sets internally (TS5101).
    // stripInternal: what is marked `@internal` is not in the published declarations, so a consumer
    // cannot call what the reference does not show (test/package/declaration-names.test.ts).
    dts: { only: true, compilerOptions: { ignoreDeprecations: '6.0', stripInternal: true } },
  },
  {
    // The `payorch` command (package.json bin), ESM only: nothing requires it. src/tools/cli/index.ts
    // starts with its shebang; each command is its own chunk, loaded when it runs.
    entry: { cli: 'src/tools/cli/index.ts' },
    format: ['esm'],
    target: 'node22',
    platform: 'node',
    sourcemap: false,
    treeshake: true,
    esbuildPlugins: [importLibrary],
    plugins: [linkBuilt],
    esbuildOptions(options) {
      options.chunkNames = 'cli/[name]-[hash]';
    },
  },
]);
