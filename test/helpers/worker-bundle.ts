import { build } from 'esbuild';
import type { Plugin, StdinOptions } from 'esbuild';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');

interface BundleOptions {
  readonly external?: readonly string[];
  readonly banner?: string;
  /**
   * Lets the Worker give its D1 and Durable Object inboxes a later version of their table that exists
   * only in the tests (test/helpers/later-version.ts says why): `globalThis.payorchLaterVersion`,
   * `{ add(), takeBack() }`, over dist's list of versions where the bundle loads it. The bundle
   * fails if the list is not found.
   */
  readonly laterInboxVersion?: boolean;
}

const INBOX_VERSIONS = 'var SQLITE_INBOX_VERSIONS = [';

/**
 * Bundles a Worker as wrangler would, against the built package: `payorch` and its subpaths
 * resolve through package.json `exports` to dist/ (an installed copy, not the repository's
 * tsconfig paths to src/). `contents` is a module in test/; `external` adds to `cloudflare:*`.
 * Fails when dist/ is missing: `npm run build` first (`npm test` does).
 */
export function bundleWorker(contents: string, options: BundleOptions = {}): Promise<string> {
  return bundle({ stdin: { contents, resolveDir: join(root, 'test'), loader: 'ts', sourcefile: 'worker.ts' } }, options);
}

/**
 * Bundles a recipe file as the Worker's main module, exactly as `wrangler deploy` bundles its
 * `main`: every named export of the file is an export of the Worker, which workerd takes for an
 * entrypoint. `file` is relative to the repository.
 */
export function bundleWorkerFile(file: string, options: BundleOptions = {}): Promise<string> {
  return bundle({ entryPoints: [join(root, file)] }, options);
}

const laterInboxVersion: Plugin = {
  name: 'later-inbox-version',
  setup(build) {
    build.onLoad({ filter: /[\\/]dist[\\/].*\.js$/ }, (args) => {
      const contents = readFileSync(args.path, 'utf8');
      if (!contents.includes(INBOX_VERSIONS)) return undefined;
      const later = `
const payorchLater = { version: Math.max(...SQLITE_INBOX_VERSIONS.map((each) => each.version), ...SQLITE_INBOX_RETIRED) + 1, shape: [...SQLITE_INBOX_VERSIONS[0].shape, 'note TEXT'], up: (table) => [\`ALTER TABLE \${table} ADD COLUMN note TEXT\`] };
globalThis.payorchLaterVersion = {
  add() { if (!SQLITE_INBOX_VERSIONS.includes(payorchLater)) SQLITE_INBOX_VERSIONS.push(payorchLater); },
  takeBack() { const at = SQLITE_INBOX_VERSIONS.indexOf(payorchLater); if (at >= 0) SQLITE_INBOX_VERSIONS.splice(at, 1); },
};
`;
      return { contents: contents + later, loader: 'js' };
    });
  },
};

async function bundle(input: { readonly stdin: StdinOptions } | { readonly entryPoints: string[] }, options: BundleOptions): Promise<string> {
  if (!existsSync(join(root, 'dist/index.js'))) throw new Error('dist/ is missing: run npm run build');
  const directory = mkdtempSync(join(tmpdir(), 'payorch-worker-'));
  try {
    mkdirSync(join(directory, 'node_modules'));
    symlinkSync(root, join(directory, 'node_modules', 'payorch'), 'dir');
    writeFileSync(join(directory, 'tsconfig.json'), '{ "compilerOptions": { "target": "ES2022" } }');
    const result = await build({
      ...input,
      bundle: true,
      write: false,
      metafile: true,
      format: 'esm',
      platform: 'neutral',
      conditions: ['workerd', 'worker', 'browser'],
      mainFields: ['module', 'main'],
      nodePaths: [join(directory, 'node_modules'), join(root, 'node_modules')],
      tsconfig: join(directory, 'tsconfig.json'),
      external: ['cloudflare:*', ...(options.external ?? [])],
      ...(options.banner === undefined ? {} : { banner: { js: options.banner } }),
      plugins: options.laterInboxVersion === true ? [laterInboxVersion] : [],
      logLevel: 'silent',
    });
    if (options.laterInboxVersion === true && !result.outputFiles[0]?.text.includes('globalThis.payorchLaterVersion')) throw new Error(`no file of dist/ holds ${INBOX_VERSIONS}: the test-only version was not added`);
    const inputs = Object.keys(result.metafile.inputs);
    if (inputs.some((file) => file.includes('src/index.ts'))) throw new Error('the worker bundled payorch from src/, not dist/');
    return result.outputFiles[0]?.text ?? '';
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
