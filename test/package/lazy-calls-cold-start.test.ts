import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect, test } from 'vitest';
import { requireBuilt } from '../helpers/dist.js';
import { entry } from '../../scripts/entries.mjs';

/*
 * Importing payorch loads neither zod, the endpoint tables nor the call engine: each API's
 * calls.ts and src/internal/call-engine.ts, built to chunks of their own, are imported by a
 * client's first call. A fresh process imports the entry, records every file it loaded (ESM: a
 * resolve hook; CommonJS: require.cache), makes a client, makes one call (refused by its `fetch`:
 * nothing is sent) and records again.
 */
const root = join(import.meta.dirname, '..', '..');
const main = entry('payorch');
requireBuilt(main.esm, main.cjs);

const call = (client: string) => `
const client = new ${client}({ baseUrl: 'https://pay.example.com', apiKey: 'k', secretKey: 's', maxRetries: 0, fetch: () => Promise.reject(new TypeError('fetch failed')) });
const error = await client.welcome().then(() => undefined, (e) => e);`;

const esm = `
import { registerHooks } from 'node:module';
const loaded = [];
registerHooks({ resolve(specifier, context, next) { const found = next(specifier, context); loaded.push(found.url); return found; } });
const { ProviderClient } = await import(${JSON.stringify(pathToFileURL(join(root, main.esm)).href)});
const atStart = [...loaded];
${call('ProviderClient')}
process.stdout.write(JSON.stringify({ atStart, after: loaded, error: error?.constructor.name }));`;

const cjs = `
(async () => {
const { ProviderClient } = require(${JSON.stringify(join(root, main.cjs))});
const atStart = Object.keys(require.cache);
${call('ProviderClient')}
process.stdout.write(JSON.stringify({ atStart, after: Object.keys(require.cache), error: error?.constructor.name }));
})();`;

const files = (loaded: readonly string[]) => loaded.filter((file) => file.includes('/dist/')).map((file) => (file.startsWith('file:') ? fileURLToPath(file) : file));
// Bundled, zod keeps the path of each of its modules in a comment.
const withZod = (loaded: readonly string[]) => files(loaded).filter((file) => readFileSync(file, 'utf8').includes('node_modules/zod/'));
const callsChunk = (loaded: readonly string[]) => files(loaded).filter((file) => /\/dist\/calls-[^/]*\.c?js$/.test(file));
const engineChunk = (loaded: readonly string[]) => files(loaded).filter((file) => /\/dist\/call-engine-[^/]*\.c?js$/.test(file));

test.each([
  ['ESM', ['--input-type=module', '-e', esm]],
  ['CommonJS', ['-e', cjs]],
] as const)('importing payorch loads four files (ESM) or three (CommonJS), and neither zod, the endpoint tables nor the call engine; a client’s first call does (%s)', (label, args) => {
  const { atStart, after, error } = JSON.parse(execFileSync(process.execPath, args, { cwd: root, encoding: 'utf8' })) as { atStart: string[]; after: string[]; error: string };
  // Its own file, what it shares with the other entries and the command (dist/internal/shared), and
  // payorch/webhooks' core, with the error classes in a file of their own in ESM (Node's
  // payorch/webhooks imports them alone). Each more file costs about 0.5 ms.
  const own = label === 'ESM' ? ['dist/index.js', 'dist/internal/shared.js', 'dist/webhooks/core.js', 'dist/webhooks/errors.js'] : ['dist/index.cjs', 'dist/internal/shared.cjs', 'dist/webhooks/core.cjs'];
  expect(new Set(files(atStart).map((file) => file.slice(file.lastIndexOf('/dist/') + 1)))).toEqual(new Set(own));
  expect(callsChunk(atStart)).toEqual([]);
  expect(engineChunk(atStart)).toEqual([]);
  expect(withZod(atStart)).toEqual([]);
  // The call went as far as fetch: the tables were loaded, and its error is the transport's.
  expect(error).toBe('ConnectionError');
  expect(callsChunk(after)).toHaveLength(1);
  expect(engineChunk(after)).toHaveLength(1);
  expect(withZod(after).length).toBeGreaterThan(0);
});
