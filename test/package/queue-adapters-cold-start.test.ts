import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, test } from 'vitest';
import { requireBuilt } from '../helpers/dist.js';
import { ENTRIES, entry } from '../../scripts/entries.mjs';

/*
 * The inboxes and queue adapters are optional: starting a process that imports payorch and
 * payorch/webhooks loads no file of theirs and no optional peer (their engines: pg, pg-boss,
 * bullmq...). Every module a fresh node process resolves is recorded (ESM: a resolve hook;
 * CommonJS: require.cache), and the entry itself, imported last, shows that the record sees it.
 */
const root = join(import.meta.dirname, '..', '..');
// Every entry built under dist/inboxes/ or dist/queues/ (package.json `exports`, read by
// scripts/entries.mjs), and every optional peer of package.json: a new one is checked here as is.
const OPTIONAL = ENTRIES.filter((each) => /^(inboxes|queues)\//.test(each.out)).map((each) => each.name);
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { peerDependenciesMeta: Record<string, { optional?: boolean }> };
const PEERS = Object.keys(manifest.peerDependenciesMeta).filter((peer) => manifest.peerDependenciesMeta[peer]?.optional === true);
const url = (file: string) => JSON.stringify(pathToFileURL(join(root, file)).href);

const esm = (name: string) => `
import { registerHooks } from 'node:module';
const loaded = [];
registerHooks({ resolve(specifier, context, next) { const found = next(specifier, context); loaded.push(found.url); return found; } });
await import(${url(entry('payorch').esm)});
await import(${url(entry('payorch/webhooks').esm)});
const atStart = [...loaded];
await import(${url(entry(name).esm)});
process.stdout.write(JSON.stringify({ atStart, after: loaded }));`;

const cjs = (name: string) => `
require(${JSON.stringify(join(root, entry('payorch').cjs))});
require(${JSON.stringify(join(root, entry('payorch/webhooks').cjs))});
const atStart = Object.keys(require.cache);
require(${JSON.stringify(join(root, entry(name).cjs))});
process.stdout.write(JSON.stringify({ atStart, after: Object.keys(require.cache) }));`;

requireBuilt(...OPTIONAL.flatMap((name) => [entry(name).esm, entry(name).cjs]));

describe.each(OPTIONAL)('%s', (name) => {
  test.each([
    ['ESM', ['--input-type=module', '-e', esm(name)]],
    ['CommonJS', ['-e', cjs(name)]],
  ] as const)('is not loaded when a process starts with payorch and payorch/webhooks (%s)', (_label, args) => {
    const { atStart, after } = JSON.parse(execFileSync(process.execPath, args, { cwd: root, encoding: 'utf8' })) as { atStart: string[]; after: string[] };
    const ofEntry = (files: readonly string[]) => files.filter((file) => file.includes(`/${dirname(entry(name).esm)}/`) || PEERS.some((peer) => file.includes(`/node_modules/${peer}/`)));
    expect(atStart.length).toBeGreaterThan(1);
    expect(ofEntry(atStart)).toEqual([]);
    expect(ofEntry(after).length).toBeGreaterThan(0);
  });
});
