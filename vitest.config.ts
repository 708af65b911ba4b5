import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Examples import 'payorch' as users do; tsconfig's paths resolve it to the source in tests too.
  resolve: { tsconfigPaths: true },
  test: {
    // Worker threads start faster than the default child processes: about 25 s of a 145 s run on
    // two cores (bench/RESULTS.md, "Test suite"). No test changes directory or relies on a
    // process of its own.
    pool: 'threads',
    restoreMocks: true,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/**/*.pg.test.ts'],
          typecheck: { enabled: true, include: ['test/**/*.test-d.ts'] },
        },
      },
      {
        // Against a real PostgreSQL that the global setup starts once per run, and only when a
        // file of this project is selected.
        extends: true,
        test: { name: 'postgres', include: ['test/**/*.pg.test.ts'], globalSetup: ['test/postgres/global-setup.ts'] },
      },
    ],
  },
});
