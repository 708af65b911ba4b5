import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Examples import 'payorch' as users do; tsconfig's paths resolve it to the source in tests too.
  resolve: { tsconfigPaths: true },
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup.ts'],
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'] },
    restoreMocks: true,
  },
});
