import { build } from 'esbuild';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';

// `pg` is an optional peer of payorch/postgres: importing `payorch` must never load it, nor the
// inbox module that is written for it. Bundled as a user's bundler would, packages left external.
const root = join(import.meta.dirname, '..', '..');

async function graph(entry: string): Promise<{ inputs: string[]; packages: string[] }> {
  const result = await build({ entryPoints: [join(root, entry)], bundle: true, write: false, metafile: true, platform: 'neutral', packages: 'external', logLevel: 'silent' });
  const inputs = Object.keys(result.metafile.inputs);
  const packages = Object.values(result.metafile.inputs).flatMap((input) => input.imports.filter((each) => each.external).map((each) => each.path));
  return { inputs, packages };
}

const entries = ['src/index.ts', 'dist/index.js', 'dist/index.cjs'];

describe.each(entries)('the main entry %s', (entry) => {
  test.skipIf(entry.startsWith('dist/') && !existsSync(join(root, entry)))('reaches neither pg nor the PostgreSQL inbox', async () => {
    const { inputs, packages } = await graph(entry);
    expect(inputs.length).toBeGreaterThan(0);
    expect(packages.filter((name) => name === 'pg' || name.startsWith('pg/') || name.startsWith('pg-'))).toEqual([]);
    expect(inputs.filter((file) => file.includes('postgres'))).toEqual([]);
  });
});

test('the PostgreSQL entry itself imports no pg either: the pool is the user’s', async () => {
  const { inputs, packages } = await graph('src/postgres/index.ts');
  expect(inputs.some((file) => file.endsWith('src/postgres/index.ts'))).toBe(true);
  expect(packages).toEqual([]);
});
