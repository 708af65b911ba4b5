import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { SPEC_GAPS_FILE, withGeneratedTables } from '../../scripts/spec-gaps.js';
import { API_ENDPOINTS } from '../../src/tools/registry/index.js';

// docs/spec-gaps.md promises that every choice payorch makes where the spec is silent is pinned by
// a test, and that the gaps of single endpoints are the ones on the endpoint rows.
const root = join(import.meta.dirname, '../..');
const text = readFileSync(SPEC_GAPS_FILE, 'utf8');

// | Spec | Gap | assumes | Override | Test |: 7 pieces around 5 cells; the header and the rule are not rows.
const rows = text
  .split('\n')
  .map((line, index) => ({ line: index + 1, cells: line.split('|').map((cell) => cell.trim()) }))
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
  test('every row names at least one test file, and every file it names exists', () => {
    expect(rows.length).toBeGreaterThan(60);
    const unpinned = rows.filter(({ tests }) => (tests.match(TEST_FILE) ?? []).length === 0).map(({ line, gap }) => `line ${line}: ${gap}`);
    const missing = rows.flatMap(({ line, tests }) => (tests.match(TEST_FILE) ?? []).filter((path) => !exists(path)).map((path) => `line ${line}: ${path}`));
    expect(unpinned, 'rows of docs/spec-gaps.md that name no test: add the test that pins the choice to its row in src/spec-gaps.ts, then npx tsx scripts/spec-gaps.ts').toEqual([]);
    expect(missing, 'test files docs/spec-gaps.md names that do not exist: fix the path in src/spec-gaps.ts, then npx tsx scripts/spec-gaps.ts').toEqual([]);
  });

  test('its endpoint tables are the gaps on the endpoint rows (npx tsx scripts/spec-gaps.ts rewrites them)', () => {
    expect(text, 'docs/spec-gaps.md is stale: run npx tsx scripts/spec-gaps.ts').toBe(withGeneratedTables(text));
  });

  test('every gap on an endpoint row appears in it exactly once', () => {
    const gaps = [...new Set(API_ENDPOINTS.flatMap((row) => row.gaps))];
    expect(gaps.length).toBeGreaterThan(15);
    expect(gaps.filter(({ gap }) => rows.filter((row) => row.gap === gap).length !== 1).map(({ gap }) => gap), 'gaps of the endpoint rows missing from docs/spec-gaps.md, or in it twice: run npx tsx scripts/spec-gaps.ts').toEqual([]);
  });
});
