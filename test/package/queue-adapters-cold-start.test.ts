import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, test } from 'vitest';
import { requireBuilt } from '../helpers/dist.js';
import { entry } from '../../scripts/entries.mjs';

/*
 * The queue adapters are optional: starting a process that imports payorch and payorch/webhooks
 * loads no file of theirs and no engine package. Every module a fresh node process resolves is
 * recorded (ESM: a resolve hook; CommonJS: require.cache), and the adapter's own entry, imported
 * last, shows that the record sees it.
 */
const root = join(import.meta.dirname, '..', '..');
// Each adapter with the engine packages its users install.
const ADAPTERS = [
  ['pg-boss', ['pg-boss', 'pg']],
  ['bullmq', ['bullmq', 'ioredis']],
  // Its engine is the Worker's runtime: no package.
  ['cloudflare-queues', []],
] as const;
const url = (file: string) => JSON.stringify(pathToFileURL(join(root, file)).href);

const esm = (adapter: string) => `
import { registerHooks } from 'node:module';
const loaded = [];
registerHooks({ resolve(specifier, context, next) { const found = next(specifier, context); loaded.push(found.url); return found; } });
await import(${url(entry('payorch').esm)});
await import(${url(entry('payorch/webhooks').esm)});
const atStart = [...loaded];
await import(${url(entry(`payorch/${adapter}`).esm)});
process.stdout.write(JSON.stringify({ atStart, after: loaded }));`;

const cjs = (adapter: string) => `
require(${JSON.stringify(join(root, entry('payorch').cjs))});
require(${JSON.stringify(join(root, entry('payorch/webhooks').cjs))});
const atStart = Object.keys(require.cache);
require(${JSON.stringify(join(root, entry(`payorch/${adapter}`).cjs))});
process.stdout.write(JSON.stringify({ atStart, after: Object.keys(require.cache) }));`;

requireBuilt(...ADAPTERS.flatMap(([adapter]) => [entry(`payorch/${adapter}`).esm, entry(`payorch/${adapter}`).cjs]));

describe.each(ADAPTERS)('payorch/%s', (adapter, engines) => {
  test.each([
    ['ESM', ['--input-type=module', '-e', esm(adapter)]],
    ['CommonJS', ['-e', cjs(adapter)]],
  ] as const)('is not loaded when a process starts with payorch and payorch/webhooks (%s)', (_label, args) => {
    const { atStart, after } = JSON.parse(execFileSync(process.execPath, args, { cwd: root, encoding: 'utf8' })) as { atStart: string[]; after: string[] };
    const ofAdapter = (files: readonly string[]) => files.filter((file) => file.includes(`/${dirname(entry(`payorch/${adapter}`).esm)}/`) || engines.some((engine) => file.includes(`/node_modules/${engine}/`)));
    expect(atStart.length).toBeGreaterThan(1);
    expect(ofAdapter(atStart)).toEqual([]);
    expect(ofAdapter(after).length).toBeGreaterThan(0);
  });
});
