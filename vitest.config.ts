import { availableParallelism } from 'node:os';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer } from 'vitest/node';
import type { TestSpecification } from 'vitest/node';

/*
 * Most test files only call functions and open sockets of their own: they share one module
 * graph per worker (isolate: false), so zod, ky and src/ are loaded once per worker instead of
 * once per file. Files that intercept fetch with msw (useMsw()) share a graph among themselves,
 * apart from the others. A file that mocks modules, or sets process.env itself, gets a fresh graph
 * of its own, and so does one that stubs globals or the environment or fakes timers without undoing
 * it (vi.unstubAllGlobals, vi.unstubAllEnvs, vi.useRealTimers); so does a unit file that resets
 * modules, after which the files that follow it in its worker would load everything again. Files
 * are sorted by what they call, so a new file needs no entry here.
 */
const OWN_GRAPH = /\bvi\.(?:mock|doMock)\b|process\.env(?:\.\w+|\[[^\]]+\])\s*=[^=]|delete process\.env/;
// What a file changes for the whole worker, and what undoes it.
const UNDONE: readonly (readonly [RegExp, RegExp])[] = [
  [/\bvi\.stubGlobal\b/, /\bvi\.unstubAllGlobals\b/],
  [/\bvi\.stubEnv\b/, /\bvi\.unstubAllEnvs\b/],
  [/\bvi\.(?:useFakeTimers|setSystemTime)\b/, /\bvi\.useRealTimers\b/],
];
const ownGraph = (text: string): boolean => OWN_GRAPH.test(text) || UNDONE.some(([change, undo]) => change.test(text) && !undo.test(text));
const RESETS = /\bvi\.resetModules\b/;
const MSW = /\buseMsw\(/;
const UNIT = ['test/**/*.test.ts'];
const POSTGRES = ['test/**/*.pg.test.ts'];
const testDirectory = join(import.meta.dirname, 'test');
const testFiles = readdirSync(testDirectory, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.test.ts'))
  .map((file) => ({ name: `test/${file.replaceAll('\\', '/')}`, text: readFileSync(join(testDirectory, file), 'utf8') }))
  .sort((a, b) => a.name.localeCompare(b.name));
const unitFiles = testFiles.filter((file) => !file.name.endsWith('.pg.test.ts'));
// The PostgreSQL files share one cluster (global setup), so they stay one project: it shares a
// graph while none of them needs one of its own.
const postgresShares = !testFiles.some((file) => file.name.endsWith('.pg.test.ts') && (ownGraph(file.text) || MSW.test(file.text)));
const isolated = unitFiles.filter((file) => ownGraph(file.text) || RESETS.test(file.text)).map((file) => file.name);
const msw = unitFiles.filter((file) => !isolated.includes(file.name) && MSW.test(file.text)).map((file) => file.name);
// A project whose list came out empty matches nothing instead of every file.
const only = (files: readonly string[]) => (files.length > 0 ? [...files] : ['no-file']);

/*
 * The files that read dist/: those that name it, or import (from test/, scripts/ or examples/) a
 * module that does, at any depth. While `npm test` builds dist/ in the background
 * (test/setup/build.ts), they wait for it (test/setup/wait-for-build.ts) and start after the others.
 */
const NAMES_DIST = /\bdist\b/;
// A package's own dist/ in an import ('ajv/dist/2020.js') is not ours.
const PACKAGE_DIST = /(['"])[@\w][^'"]*\/dist\/[^'"]*\1/g;
const RELATIVE_IMPORT = /(?:from\s+|import\(\s*)(['"])(\.\.?\/[^'"]+)\1/g;
const readsDist = new Map<string, boolean>();
function namesDist(path: string, seen: Set<string>): boolean {
  const known = readsDist.get(path);
  if (known !== undefined) return known;
  if (seen.has(path) || !existsSync(path)) return false;
  seen.add(path);
  const text = readFileSync(path, 'utf8');
  const found =
    NAMES_DIST.test(text.replace(PACKAGE_DIST, '')) ||
    [...text.matchAll(RELATIVE_IMPORT)].some((match) => {
      const target = resolve(dirname(path), match[2] ?? '');
      if (!['test', 'scripts', 'examples'].some((place) => !relative(join(import.meta.dirname, place), target).startsWith('..'))) return false;
      return [target, target.replace(/\.js$/, '.ts'), target.replace(/\.js$/, '.mjs')].some((candidate) => /\.m?[jt]s$/.test(candidate) && namesDist(candidate, seen));
    });
  readsDist.set(path, found);
  return found;
}
const distReaders = testFiles.filter((file) => namesDist(join(import.meta.dirname, file.name), new Set())).map((file) => file.name);

/*
 * The order files start in. A worker keeps its module graph only from one file to the next of the
 * same project, so files go project by project, and within a project the slow ones first: a file
 * that waits on something slow (a queue engine, workerd, PostgreSQL's maintenance, the compiler)
 * declares a timeout of 10 s or more, and started last it would hold the run's end alone. Vitest's
 * results of an earlier run, where there are some, say which files are slow; a fresh clone has
 * none, and goes by the timeouts declared. The isolated files come first, as they keep no graph
 * anyway. While dist/ is being built, the files that read it come after the others of their
 * project: the build ends well before the PostgreSQL files that do not read it, so the recipes
 * that read it, which wait on engines more than they compute, then run beside the unit files.
 */
const DECLARED_TIMEOUT = /,\s*(\d[\d_]*)\s*\)\s*;?\s*$/gm;
const declaredWait = new Map(
  testFiles.map((file) => [
    join(import.meta.dirname, file.name),
    [...file.text.matchAll(DECLARED_TIMEOUT)].map((match) => Number(match[1]?.replaceAll('_', ''))).filter((timeout) => timeout >= 10_000).reduce((sum, timeout) => sum + timeout, 0),
  ]),
);
const PROJECT_ORDER = ['unit-isolated', 'postgres', 'unit', 'unit-msw'];
class SlowFilesFirst extends BaseSequencer {
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const slowness = (spec: TestSpecification): number => {
      const result = this.ctx.cache.getTestSpecificationResult(spec);
      if (result !== undefined) return result.failed ? Number.MAX_SAFE_INTEGER : result.duration >= 5_000 ? result.duration : 0;
      return declaredWait.get(spec.moduleId) ?? 0;
    };
    const building = this.ctx.getRootProject().getProvidedContext().distBuild !== '';
    const waits = (spec: TestSpecification): number => (building && distReaders.includes(relative(import.meta.dirname, spec.moduleId).replaceAll('\\', '/')) ? 1 : 0);
    const project = (spec: TestSpecification): number => PROJECT_ORDER.indexOf(spec.project.name);
    const sizes = new Map(files.map((spec) => [spec, statSync(spec.moduleId).size]));
    const size = (spec: TestSpecification): number => sizes.get(spec) ?? 0;
    return Promise.resolve([...files].sort((a, b) => project(a) - project(b) || waits(a) - waits(b) || slowness(b) - slowness(a) || size(b) - size(a)));
  }
}

export default defineConfig({
  // Examples import 'payorch' as users do; tsconfig's paths resolve it to the source in tests too.
  resolve: { tsconfigPaths: true },
  // What tsup.config.ts writes into the build: the version the User-Agent names.
  define: { __PAYORCH_VERSION__: JSON.stringify((JSON.parse(readFileSync(join(import.meta.dirname, 'package.json'), 'utf8')) as { version: string }).version) },
  test: {
    // Worker threads start faster than the default child processes. No test changes directory
    // or relies on a process of its own.
    pool: 'threads',
    // Vitest's default leaves one core to its main thread, which is a single worker on two cores.
    // Many files wait on sockets, child processes, servers and queue engines' polling, so two
    // workers more than the cores keep both busy.
    maxWorkers: Math.max(4, availableParallelism() + 2),
    restoreMocks: true,
    // On two cores shared with a build, servers and other runs, a test that takes a second alone
    // may take many times that; how long a test may take is not what it asserts (a test that waits
    // on an engine says so with a timeout of its own, which these do not change).
    testTimeout: 20_000,
    hookTimeout: 30_000,
    sequence: { sequencer: SlowFilesFirst },
    globalSetup: ['test/setup/run-directory.ts', 'test/setup/build.ts'],
    setupFiles: ['test/setup/wait-for-build.ts', 'test/setup/undo-stubs.ts'],
    provide: { distReaders },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: UNIT,
          exclude: [...POSTGRES, ...msw, ...isolated],
          isolate: false,
        },
      },
      { extends: true, test: { name: 'unit-msw', include: only(msw), isolate: false } },
      { extends: true, test: { name: 'unit-isolated', include: only(isolated) } },
      {
        // Against a real PostgreSQL that the global setup starts once per run, and only when a
        // file of this project is selected.
        extends: true,
        test: { name: 'postgres', include: POSTGRES, isolate: !postgresShares, globalSetup: ['test/postgres/global-setup.ts'] },
      },
    ],
  },
});
