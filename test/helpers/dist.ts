import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The repository's root, where dist/ is built. */
export const repoRoot = join(import.meta.dirname, '..', '..');

/**
 * Fails the test file when a built file is missing: checks of dist/ must fail without it, never
 * skip. `npm test` builds dist/ (test/setup/build.ts).
 */
export function requireBuilt(...files: readonly string[]): void {
  const missing = files.filter((file) => !existsSync(join(repoRoot, file)));
  if (missing.length > 0) throw new Error(`dist/ is missing ${missing.join(', ')}: run npm run build (npm test builds it)`);
}
