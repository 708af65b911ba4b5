import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';

// The guide's table of errors is where a caller looks up `reason`: it must name every value the
// type allows, read from the source so that a value added there fails here until documented.
const root = join(import.meta.dirname, '../..');

test('docs/errors-and-retries.md names every AuthFailureReason of src/errors/api-error.ts', () => {
  const source = readFileSync(join(root, 'src/errors/api-error.ts'), 'utf8');
  const union = /export type AuthFailureReason =([^;]+);/.exec(source)?.[1] ?? '';
  const reasons = [...union.matchAll(/'([a-z_]+)'/g)].map(([, reason]) => reason);
  expect(reasons.length, 'AuthFailureReason is no longer a union of quoted strings: read it here as it is written now').toBeGreaterThan(1);
  const guide = readFileSync(join(root, 'docs/errors-and-retries.md'), 'utf8');
  expect(reasons.filter((reason) => !guide.includes(`\`${reason}\``)), 'reasons docs/errors-and-retries.md does not name: add each, in backticks, to its table of reasons').toEqual([]);
});
