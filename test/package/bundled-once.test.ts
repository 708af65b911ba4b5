import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { repoRoot, requireBuilt } from '../helpers/dist.js';

/*
 * Each library module is in the package once per module format: the entries share chunks and
 * dist/webhooks/core.js, and the `payorch` command imports the built entries instead of bundling
 * copies of its own (docs/decisions.md, "The CLI uses the public surfaces"). Told by a text of a
 * module's own code: one .js file and one .cjs file of dist/ hold it.
 */
requireBuilt('dist/index.js', 'dist/index.cjs', 'dist/cli.js');

const dist = join(repoRoot, 'dist');
const built = readdirSync(dist, { recursive: true, encoding: 'utf8' })
  .filter((file) => /\.c?js$/.test(file))
  .map((file) => ({ file: file.replaceAll('\\', '/'), text: readFileSync(join(dist, file), 'utf8') }));

/** A module, and a text of its own code that no other module of src/ holds. */
const SAMPLES = [
  ['the call engine', 'src/internal/call-engine.ts', 'the custom fetch dropped redirect'],
  ['the sandbox', 'src/tools/sandbox/control.ts', 'every record, oldest first'],
  ['the errors', 'src/errors/error.ts', 'is not an error class of payorch'],
  ['the schemas', 'src/internal/schema-blocks.ts', 'an integer as a numeric string'],
] as const;

describe.each(SAMPLES)('the code of %s', (_name, module, sample) => {
  test('is still told by its sample: no other module of src/ holds it', () => {
    const holders = readdirSync(join(repoRoot, 'src'), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts'))
      .filter((file) => readFileSync(join(repoRoot, 'src', file), 'utf8').includes(sample))
      .map((file) => `src/${file.replaceAll('\\', '/')}`);
    expect(holders).toEqual([module]);
  });

  test.each([
    ['ESM', '.js'],
    ['CommonJS', '.cjs'],
  ])('is in one %s file of dist/', (_format, extension) => {
    expect(built.filter(({ file, text }) => file.endsWith(extension) && text.includes(sample)).map(({ file }) => file)).toHaveLength(1);
  });
});
