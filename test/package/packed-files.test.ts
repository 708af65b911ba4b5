import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { packed } from '../helpers/packed.js';

const root = join(import.meta.dirname, '../..');

// What `npm pack` puts in the tarball, from the manifest's `files` (dist/ as built). npm starts
// slowly on a busy machine: asked once a run, with a timeout of its own.
const NPM_TIMEOUT_MS = 60_000;

test('the package carries what users read, not the screenshots (linked from the repository) or the maintainers\' decision record', async () => {
  const { files } = await packed(NPM_TIMEOUT_MS);
  expect(files.filter((file) => file.endsWith('.png') || file === 'docs/decisions.md')).toEqual([]);
  expect(files).toEqual(expect.arrayContaining(['README.md', 'docs/receiving-callbacks.md', 'docs/openapi.json', 'examples/webhooks/node-http.ts', 'dist/index.d.ts', 'dist/schemas/index.d.ts']));
}, NPM_TIMEOUT_MS);

test('no runtime message of the built package points to a guide the package does not carry', async () => {
  const files = new Set((await packed(NPM_TIMEOUT_MS)).files);
  const dist = join(root, 'dist');
  const pointers = readdirSync(dist, { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.c?js$/.test(file))
    .flatMap((file) => readFileSync(join(dist, file), 'utf8').split('\n'))
    // Code, not comments: a doc comment is for the reader of the source.
    .filter((line) => !/^\s*(\*|\/\/|\/\*)/.test(line))
    .flatMap((line) => [...line.matchAll(/docs\/[\w-]+\.md/g)].map(([path]) => ({ path, line: line.trim() })));
  expect(pointers.length).toBeGreaterThan(0);
  const missing = pointers.filter(({ path }) => !files.has(path));
  expect(missing).toEqual([]);
}, NPM_TIMEOUT_MS);
