import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, test } from 'vitest';

// docs/spec-gaps.md promises that every choice payorch makes where the spec is silent is pinned by
// a test: each row must name at least one test file, and each file it names must exist.
const root = join(import.meta.dirname, '../..');
const text = readFileSync(join(root, 'docs/spec-gaps.md'), 'utf8');

interface Row {
  readonly line: number;
  readonly gap: string;
  readonly tests: string;
}

const rows: Row[] = text
  .split('\n')
  .map((line, index) => ({ line: index + 1, cells: line.split('|').map((cell) => cell.trim()) }))
  // | Spec | Gap | assumes | Override | Test |: 7 pieces around 5 cells; skip the header and the rule.
  .filter(({ cells }) => cells.length === 7 && cells[1] !== 'Spec' && !/^-+$/.test(cells[1] ?? ''))
  .map(({ line, cells }) => ({ line, gap: cells[2] ?? '', tests: cells[5] ?? '' }));

const TEST_FILE = /test\/[\w./*-]+?\.test(?:-d)?\.ts/g;

function exists(path: string): boolean {
  if (!path.includes('*')) return existsSync(join(root, path));
  const pattern = new RegExp(`^${path.split('/').pop()!.replace(/[.]/g, '\\.').replace(/\*/g, '[^/]*')}$`);
  const directory = join(root, dirname(path));
  return existsSync(directory) && readdirSync(directory).some((name) => pattern.test(name));
}

describe('docs/spec-gaps.md', () => {
  test('has rows to check', () => {
    expect(rows.length).toBeGreaterThan(60);
  });

  test.each(rows)('line $line ($gap) names a test file, and every file it names exists', ({ tests }) => {
    const named = tests.match(TEST_FILE) ?? [];
    expect(named.length).toBeGreaterThan(0);
    for (const path of named) expect(exists(path), path).toBe(true);
  });
});
