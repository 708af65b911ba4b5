import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/*
 * The Node 22 lane: tests of the current majors that need Node 22.12 or later (msw 3, pg-boss 12),
 * run by scripts/test-node22.sh under the registry's node@22 with this folder's own node_modules.
 * The rest of the suite stays on Node 20 with the majors that still run there.
 *
 * A file outside this folder (an example recipe) that imports one of these packages would find the
 * repository's older major first; the aliases send it to this folder's copy.
 */
const lane = (specifier: string): string => fileURLToPath(import.meta.resolve(specifier));

export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  resolve: {
    tsconfigPaths: true,
    alias: [
      { find: /^pg-boss$/, replacement: lane('pg-boss') },
      { find: /^msw$/, replacement: lane('msw') },
      { find: /^msw\/node$/, replacement: lane('msw/node') },
    ],
  },
  test: {
    include: ['test/node22/**/*.test.ts'],
    exclude: ['test/node22/node_modules/**'],
    pool: 'forks',
  },
});
