import { join } from 'node:path';
import ts from 'typescript';
import { expect, test } from 'vitest';
import { ENTRIES } from '../../scripts/entries.mjs';

// package.json `exports` is the one list of entries (scripts/entries.mjs). tsconfig's `paths`,
// which let examples and tests import `payorch/…` as users do, name rooms of src/ rather than
// entries: each entry must still reach its own source through them, and nothing else.
const root = join(import.meta.dirname, '..', '..');
const config = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });

test.each(ENTRIES.map((each) => [each.name, each.source]))('tsconfig paths resolve %s to %s, the source of the file package.json exports', (name, source) => {
  const resolved = ts.resolveModuleName(name, join(root, 'examples', 'any.ts'), config!.options, ts.sys).resolvedModule?.resolvedFileName;
  expect(resolved).toBe(join(root, source));
});

test('every entry is built from a source of its own', () => {
  expect(new Set(ENTRIES.map((each) => each.source)).size).toBe(ENTRIES.length);
  expect(ENTRIES.map((each) => each.name)).toContain('payorch/webhooks');
});
