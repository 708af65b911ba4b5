import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import { buildSync } from 'esbuild';
import type { OnResolveArgs } from 'esbuild';
import { defineConfig } from 'tsup';
import type { Options } from 'tsup';
import { ENTRIES as PACKAGE_ENTRIES, entry } from './scripts/entries.mjs';

type EsbuildPlugin = NonNullable<Options['esbuildPlugins']>[number];
type TsupPlugin = NonNullable<Options['plugins']>[number];

// The modules payorch/webhooks is made of (errors, verification, the receiver, their helpers) are
// built first into two files: dist/webhooks/core.js, what importing it runs, and
// dist/webhooks/receive.js, what only a receiver's requests run (src/webhooks/receiver/receive-path.ts,
// which the receiver imports with `import()` on its first request, and the modules only it
// reaches). Each file exports every name of every one of its modules, and imports the other's names
// from it. Every entry, payorch/webhooks included, then imports them from those files instead of
// carrying them in chunks of its own. So a receiver's cold start loads two modules, not the seven
// that code splitting cut them into; the package holds one copy of the error classes, `instanceof`
// across every entry; and nothing is bundled twice.
const WEBHOOKS_ENTRY = resolve(entry('payorch/webhooks').source);
const RECEIVE_PATH = resolve('src/webhooks/receiver/receive-path.ts');
// payorch/webhooks as Node imports it (src/webhooks/node.ts, built to dist/webhooks/node.js): the
// functions that load the rest on first call, over dist/webhooks/errors.js, the modules node.ts
// imports (the error classes), which the ESM core file imports too. CommonJS has neither file: its
// core file keeps the error classes, and `require('payorch/webhooks')` loads it whole.
const NODE_ENTRY = resolve('src/webhooks/node.ts');
// Every module the library is built from, with what each imports statically and dynamically.
const GRAPH = buildSync({
  entryPoints: [...PACKAGE_ENTRIES.map((each) => each.source), 'src/tools/cli-internals.ts', RECEIVE_PATH, NODE_ENTRY],
  bundle: true,
  write: false,
  metafile: true,
  outdir: 'unused',
  platform: 'neutral',
  format: 'esm',
  packages: 'external',
  logLevel: 'silent',
}).metafile.inputs;
type Edge = { readonly path: string; readonly kind: string };
const notReceivePath = (edge: Edge): boolean => !(edge.kind === 'dynamic-import' && resolve(edge.path) === RECEIVE_PATH);
// The modules reached from `starts` through the imports `follow` takes: by default all but the
// receive path's `import()`.
function reached(starts: readonly string[], follow: (edge: Edge) => boolean = notReceivePath): Set<string> {
  const found = new Set<string>();
  const visit = (file: string): void => {
    if (found.has(resolve(file))) return;
    found.add(resolve(file));
    for (const each of GRAPH[file]?.imports ?? []) if (each.external !== true && follow(each)) visit(each.path);
  };
  for (const start of starts) visit(relative('.', start));
  return found;
}
// The receive path's modules that another entry also imports statically (the transport's spans)
// stay in the core file, which that entry loads anyway.
const RECEIVE_REACHES = reached([RECEIVE_PATH]);
const OTHERS_REACH = reached([...PACKAGE_ENTRIES.map((each) => each.source), 'src/tools/cli-internals.ts']);
const CORE_SOURCES = new Set([...reached([WEBHOOKS_ENTRY]), ...[...RECEIVE_REACHES].filter((file) => OTHERS_REACH.has(file))].filter((file) => file !== WEBHOOKS_ENTRY));
const RECEIVE_SOURCES = new Set([...RECEIVE_REACHES].filter((file) => !CORE_SOURCES.has(file)));
const ERRORS_SOURCES = new Set([...reached([NODE_ENTRY])].filter((file) => file !== NODE_ENTRY));
if (![...ERRORS_SOURCES].every((file) => CORE_SOURCES.has(file))) throw new Error(`src/webhooks/node.ts may import only the error classes and what they import: ${[...ERRORS_SOURCES].filter((file) => !CORE_SOURCES.has(file)).join(', ')}`);
type Format = 'esm' | 'cjs';
/** The modules of the core file in `format`: in ESM, the error classes are in a file of their own. */
function coreSources(format: Format): Set<string> {
  return format === 'esm' ? new Set([...CORE_SOURCES].filter((file) => !ERRORS_SOURCES.has(file))) : CORE_SOURCES;
}
// The modules payorch's own import runs that another file needs too (another entry, the command,
// the code a client loads on its first call), and that are not the core file's, go to one more file,
// dist/internal/shared.js: code splitting cut them into small chunks, and each module an import
// loads costs its cold start about half a millisecond (bench/findings.md 30).
const MAIN_ENTRY = resolve(entry('payorch').source);
const MAIN_IMPORTS = reached([MAIN_ENTRY], (edge) => edge.kind !== 'dynamic-import');
const MAIN_LATER = reached([...MAIN_IMPORTS].flatMap((file) => (GRAPH[relative('.', file)]?.imports ?? []).filter((edge) => edge.kind === 'dynamic-import').map((edge) => edge.path)));
const ELSEWHERE = new Set([...reached([...PACKAGE_ENTRIES.map((each) => each.source).filter((file) => resolve(file) !== MAIN_ENTRY), 'src/tools/cli-internals.ts']), ...MAIN_LATER]);
const SHARED_SOURCES = new Set([...MAIN_IMPORTS].filter((file) => file !== MAIN_ENTRY && file !== WEBHOOKS_ENTRY && ELSEWHERE.has(file) && !CORE_SOURCES.has(file) && !RECEIVE_SOURCES.has(file)));
// Generated, so that no list of those modules is kept by hand.
const BUILD_CACHE = resolve('node_modules/.cache/payorch-build');
const CORE_ENTRY = { esm: resolve(BUILD_CACHE, 'webhooks-core.ts'), cjs: resolve(BUILD_CACHE, 'webhooks-core-cjs.ts') } as const;
const RECEIVE_ENTRY = resolve(BUILD_CACHE, 'webhooks-receive.ts');
const ERRORS_ENTRY = resolve(BUILD_CACHE, 'webhooks-errors.ts');
const SHARED_ENTRY = resolve(BUILD_CACHE, 'shared.ts');
mkdirSync(BUILD_CACHE, { recursive: true });
for (const [file, sources] of [[CORE_ENTRY.esm, coreSources('esm')], [CORE_ENTRY.cjs, coreSources('cjs')], [RECEIVE_ENTRY, RECEIVE_SOURCES], [ERRORS_ENTRY, ERRORS_SOURCES], [SHARED_ENTRY, SHARED_SOURCES]] as const) {
  writeFileSync(file, [...sources].map((source) => `export * from ${JSON.stringify(source)};\n`).join(''));
}
type BuiltFile = 'payorch:webhooks-core' | 'payorch:webhooks-receive' | 'payorch:webhooks-errors' | 'payorch:shared';
/** The placeholder of the built file of `format` that holds `source`, if one of them does. */
function builtFileOf(source: string, format: Format): BuiltFile | undefined {
  if (format === 'esm' && ERRORS_SOURCES.has(source)) return 'payorch:webhooks-errors';
  return CORE_SOURCES.has(source) ? 'payorch:webhooks-core' : RECEIVE_SOURCES.has(source) ? 'payorch:webhooks-receive' : SHARED_SOURCES.has(source) ? 'payorch:shared' : undefined;
}
// The specifiers those imports (and the command's, see importLibrary) leave the bundler with, made
// relative to each output file below by linkBuilt.
const PLACEHOLDERS = { 'payorch:webhooks-core': 'webhooks/core', 'payorch:webhooks-receive': 'webhooks/receive', 'payorch:webhooks-errors': 'webhooks/errors', 'payorch:shared': 'internal/shared', 'payorch:cli-internals': 'internal/cli' } as const;

// The library's entries (payorch, payorch/sandbox, …): package.json `exports`, the one list of them
// (scripts/entries.mjs). dist/ mirrors src/, so each is built to the path `exports` names from
// the source at the same path under src/. Each is its own entry so that a program loads only what
// it imports: the SDK never loads the sandbox, an inbox or a queue adapter, nor `pg`, bullmq or
// pg-boss, which are optional peers; payorch/webhooks loads neither ky nor zod.
const ENTRIES = Object.fromEntries(PACKAGE_ENTRIES.map((each) => [each.out, each.source]));
const DECLARATION_ENTRIES = Object.fromEntries(PACKAGE_ENTRIES.map((each) => [each.out, `.build/declarations/${each.out}.d.ts`]));
// What the `payorch` command needs of the library that no entry exports, built with the ESM entries
// into dist/internal/cli.js so that it shares their chunks. No declarations, no `exports` path.
const CLI_INTERNALS = resolve('src/tools/cli-internals.ts');
// Every module the library is built from. The command imports them from the built files, never
// bundles a copy: see importLibrary.
const LIBRARY_SOURCES = new Set(
  Object.keys(buildSync({ entryPoints: [...Object.values(ENTRIES), CLI_INTERNALS], bundle: true, write: false, metafile: true, outdir: 'unused', platform: 'neutral', format: 'esm', packages: 'external', logLevel: 'silent' }).metafile.inputs).map((file) => resolve(file)),
);

/** The source file a relative import names (the .ts its .js is built from); none for an entry point. */
function importedSource(args: OnResolveArgs): string | undefined {
  return args.kind === 'entry-point' ? undefined : resolve(args.resolveDir, args.path).replace(/\.js$/, '.ts');
}

const WEBHOOKS_NAMES = 'payorch-webhooks-names';
// Of the build of `format`: tsup builds split CommonJS as ESM and converts it after, so esbuild's
// own format does not say.
const importCore = (format: Format): EsbuildPlugin => ({
  name: 'import-webhooks-core',
  setup(build) {
    build.onResolve({ filter: /^\.\.?\// }, (args) => {
      const target = importedSource(args);
      if (target === undefined) return undefined;
      // payorch re-exports payorch/webhooks' names: from a copy of its list of names, private to the
      // importer, whose modules are the core file's, so that importing payorch does not load
      // payorch/webhooks' own file besides the core.
      if (target === WEBHOOKS_ENTRY) return { path: args.importer, namespace: WEBHOOKS_NAMES };
      const built = builtFileOf(target, format);
      return built === undefined ? undefined : { path: built, external: true };
    });
    build.onLoad({ filter: /.*/, namespace: WEBHOOKS_NAMES }, async () => ({ contents: await readFile(WEBHOOKS_ENTRY, 'utf8'), loader: 'ts', resolveDir: dirname(WEBHOOKS_ENTRY) }));
  },
});

// The two files of payorch/webhooks' modules: an import from a module of one file of a module of
// the other is an import of that file (the receive path's names from the core; the receiver's
// `import()` of the receive path), so that each module is in one of them.
const splitWebhooks = (format: Format): EsbuildPlugin => ({
  name: 'split-webhooks',
  setup(build) {
    build.onResolve({ filter: /^\.\.?\// }, (args) => {
      const target = importedSource(args);
      if (target === undefined) return undefined;
      const importer =
        args.importer === CORE_ENTRY[format] ? 'payorch:webhooks-core'
        : args.importer === RECEIVE_ENTRY ? 'payorch:webhooks-receive'
        : args.importer === ERRORS_ENTRY ? 'payorch:webhooks-errors'
        : args.importer === SHARED_ENTRY ? 'payorch:shared'
        : builtFileOf(args.importer, format);
      const built = builtFileOf(target, format);
      return built === undefined || built === importer ? undefined : { path: built, external: true };
    });
  },
});

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
      const target = importedSource(args);
      if (target === undefined) return undefined;
      if (target === CLI_INTERNALS) return { path: 'payorch:cli-internals', external: true };
      const built = builtFileOf(target, 'esm');
      if (built !== undefined) return { path: built, external: true };
      if (!LIBRARY_SOURCES.has(target)) return undefined;
      const text = `${relative('.', target)} is part of the library: import it from the entry that exports it (payorch, payorch/webhooks, …), or add it to src/tools/cli-internals.ts`;
      return { errors: [{ text }] };
    });
  },
};

// `declareOptions<T>()([...])` returns its argument: it is there for the compiler. Marked pure where
// a module declares its options, so that a bundle drops the declarations of what it does not use
// (dist/webhooks/core.js holds every option table of payorch/webhooks in one file, where a
// bundler keeps any top-level call it cannot prove pure), and the joinOptions(…) that builds one
// list from two. Marks the source as written, once.
const pureDeclarations: EsbuildPlugin = {
  name: 'pure-option-declarations',
  setup(build) {
    build.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      if (!source.includes('= declareOptions<')) return undefined;
      return { contents: source.replaceAll('= declareOptions<', '= /* @__PURE__ */ declareOptions<').replaceAll('(joinOptions(', '(/* @__PURE__ */ joinOptions('), loader: 'ts' };
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
      // esbuild's CommonJS form of `import()` calls its `__require` shim, which a bundler does not
      // follow; `require` with the file's name it does.
      linked = linked.replaceAll(`__require("${placeholder}")`, `require("${placeholder}")`).replaceAll(placeholder, path.startsWith('.') ? path : `./${path}`);
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

// The settings of the builds of the files every entry imports by their placeholder (CORE_SOURCES).
const OWN_FILES = {
  define: VERSION,
  plugins: [linkBuilt],
  target: 'node22',
  platform: 'neutral',
  // Internal: no declarations, and no path of package.json `exports` names them.
  dts: false,
  sourcemap: false,
  splitting: false,
  treeshake: true,
} satisfies Options;

// The settings of the library's builds (ESM, CommonJS, declarations).
const LIBRARY = {
  define: VERSION,
  esbuildPlugins: [pureDeclarations, importCore('esm')],
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
    // See CORE_SOURCES, SHARED_SOURCES and NODE_ENTRY: five files, no code splitting, nothing
    // external but each other.
    ...OWN_FILES,
    entry: { 'webhooks/core': CORE_ENTRY.esm, 'webhooks/receive': RECEIVE_ENTRY, 'webhooks/errors': ERRORS_ENTRY, 'webhooks/node': NODE_ENTRY, 'internal/shared': SHARED_ENTRY },
    esbuildPlugins: [pureDeclarations, splitWebhooks('esm')],
    format: ['esm'],
  },
  {
    // The same in CommonJS, but for the two of Node's payorch/webhooks.
    ...OWN_FILES,
    entry: { 'webhooks/core': CORE_ENTRY.cjs, 'webhooks/receive': RECEIVE_ENTRY, 'internal/shared': SHARED_ENTRY },
    esbuildPlugins: [pureDeclarations, splitWebhooks('cjs')],
    format: ['cjs'],
    esbuildOptions(options) {
      // CommonJS loads the receive path with require(), in the same module cache as the rest (and
      // where import() is not available, as in Jest without its ESM mode).
      options.supported = { ...options.supported, 'dynamic-import': false };
    },
  },
  {
    // The ESM entries, and what the command needs of them besides (CLI_INTERNALS), in one build so
    // that they share chunks. Declarations come from the build below.
    ...LIBRARY,
    entry: { ...ENTRIES, 'internal/cli': CLI_INTERNALS },
    format: ['esm'],
  },
  // The CommonJS entries: nothing requires CLI_INTERNALS.
  { ...LIBRARY, entry: ENTRIES, format: ['cjs'], esbuildPlugins: [pureDeclarations, importCore('cjs')] },
  {
    // Declarations of both formats, in one pass: bundled per entry from those TypeScript 7 emitted
    // for each source file (scripts/emit-declarations.mjs, the build's first step), so that tsup
    // emits none itself. TypeScript 6 deprecates `baseUrl`, which tsup 8's dts build sets
    // internally (TS5101).
    ...LIBRARY,
    entry: ENTRIES,
    format: ['esm', 'cjs'],
    dts: { only: true, entry: DECLARATION_ENTRIES, compilerOptions: { ignoreDeprecations: '6.0' } },
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
