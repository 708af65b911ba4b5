import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Examples import 'payorch' as users do; tsconfig's paths resolve it to the source in tests too.
  resolve: { tsconfigPaths: true },
  test: {
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
