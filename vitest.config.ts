import { availableParallelism } from 'node:os';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

/*
 * Most test files only call functions and open sockets of their own: they share one module
 * graph per worker (isolate: false), so zod, ky and src/ are loaded once per worker instead of
 * once per file (docs/decisions.md, "Test suite"). A file that changes what other files would
 * see (msw's fetch interception, module mocks, stubbed globals or environment, fake timers) gets
 * a fresh graph of its own; it is found by what it calls, so a new file of that kind needs no
 * entry here.
 */
const SHARED_STATE = /\buseMsw\(|\bvi\.(?:mock|doMock|stubGlobal|stubEnv|useFakeTimers|setSystemTime)\b|process\.env(?:\.\w+|\[[^\]]+\])\s*=[^=]|delete process\.env/;
const UNIT = ['test/**/*.test.ts'];
const POSTGRES = ['test/**/*.pg.test.ts'];
const testDirectory = join(import.meta.dirname, 'test');
const isolated = readdirSync(testDirectory, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.test.ts') && !file.endsWith('.pg.test.ts'))
  .filter((file) => SHARED_STATE.test(readFileSync(join(testDirectory, file), 'utf8')))
  .map((file) => `test/${file.replaceAll('\\', '/')}`)
  .sort();

export default defineConfig({
  // Examples import 'payorch' as users do; tsconfig's paths resolve it to the source in tests too.
  resolve: { tsconfigPaths: true },
  test: {
    // Worker threads start faster than the default child processes. No test changes directory
    // or relies on a process of its own.
    pool: 'threads',
    // Vitest's default leaves one core to its main thread, which is a single worker on two cores;
    // many files wait on sockets, child processes and servers, so two keep both cores busy.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    restoreMocks: true,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: UNIT,
          exclude: [...POSTGRES, ...isolated],
          isolate: false,
          // Only the type tests and what they import: `npm run typecheck` checks the whole
          // project, so tsc does not check it a second time here.
          typecheck: { enabled: true, include: ['test/**/*.test-d.ts'], tsconfig: 'test/typecheck.tsconfig.json' },
        },
      },
      {
        extends: true,
        test: { name: 'unit-isolated', include: isolated.length > 0 ? isolated : ['no-file'] },
      },
      {
        // Against a real PostgreSQL that the global setup starts once per run, and only when a
        // file of this project is selected.
        extends: true,
        test: { name: 'postgres', include: POSTGRES, globalSetup: ['test/postgres/global-setup.ts'] },
      },
    ],
  },
});
