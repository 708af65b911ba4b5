import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { requireBuilt } from '../helpers/dist.js';
import { ENTRIES, entry } from '../../scripts/entries.mjs';
import { describe, expect, test } from 'vitest';

// `pg` is an optional peer of payorch/postgres: importing `payorch` must never load it, nor the
// inbox module that is written for it. Bundled as a user's bundler would, packages left external.
const root = join(import.meta.dirname, '..', '..');
const main = entry('payorch');
requireBuilt(main.esm);

async function graph(entry: string): Promise<{ inputs: string[]; packages: string[]; code: string }> {
  const result = await build({ entryPoints: [join(root, entry)], bundle: true, write: false, metafile: true, platform: 'neutral', packages: 'external', logLevel: 'silent' });
  const inputs = Object.keys(result.metafile.inputs);
  const packages = Object.values(result.metafile.inputs).flatMap((input) => input.imports.filter((each) => each.external).map((each) => each.path));
  return { inputs, packages, code: result.outputFiles[0]?.text ?? '' };
}

const entries = [main.source, main.esm, main.cjs];

describe.each(entries)('the main entry %s', (entry) => {
  test('reaches neither pg nor the PostgreSQL inbox', async () => {
    const { inputs, packages } = await graph(entry);
    expect(inputs.length).toBeGreaterThan(0);
    expect(packages.filter((name) => name === 'pg' || name.startsWith('pg/') || name.startsWith('pg-'))).toEqual([]);
    expect(inputs.filter((file) => file.includes('postgres'))).toEqual([]);
  });

  // payorch/d1 and payorch/durable-object load only on demand. Their SQL (the horizon row's status)
  // is in no module the main entry reaches, whether the sources or the built chunks.
  test('reaches neither Cloudflare inbox', async () => {
    const { inputs, code } = await graph(entry);
    expect(inputs.filter((file) => /(?:src|dist)\/inboxes\/(?:d1|durable-object|sqlite)\b/.test(file))).toEqual([]);
    expect(code).toContain('payorch-cb1-');
    expect(code).not.toMatch(/payorch:horizon|createD1Inbox|createDurableObjectInbox/);
  });

  // The `tracer` option calls the user's Tracer: OpenTelemetry is never imported, so the main
  // entry runs where it is not installed.
  test('reaches no @opentelemetry package', async () => {
    const { inputs, packages } = await graph(entry);
    // From the sources, the module that makes the spans is in the graph: the check is not vacuous.
    if (entry === main.source) expect(inputs.some((file) => file.endsWith('src/internal/tracing.ts'))).toBe(true);
    expect(packages.filter((name) => name.includes('@opentelemetry'))).toEqual([]);
  });
});

describe.each([main.types, main.ctypes])('the published types %s', (file) => {
  test('name no @opentelemetry package: users need not install one to compile', () => {
    // Comments may show how to get a Tracer; the code must not import one.
    const types = readFileSync(join(root, file), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
    expect(types).toContain('TracerLike');
    expect(types).not.toContain('@opentelemetry');
  });
});

test.each(['payorch/d1', 'payorch/durable-object', 'payorch/cloudflare-queues', 'payorch/testing'].map((name) => entry(name).source))('the entry %s (Cloudflare inboxes and queue, the contracts) imports no package, no Node built-in and no zod', async (entry) => {
  const { inputs, packages } = await graph(entry);
  expect(inputs.some((file) => file.endsWith(entry))).toBe(true);
  expect(packages).toEqual([]);
  expect(inputs.filter((file) => file.includes('zod') || file.includes('schemas'))).toEqual([]);
});

// Deferred callbacks on a queue engine are an entry of their own: a receiver that applies at once,
// or enqueues to a queue of its own, loads none of the adapters. The adapters are the entries built
// under dist/queues/, their engines the optional peers of package.json.
const ADAPTERS = ENTRIES.filter((each) => each.out.startsWith('queues/'));
const { peerDependenciesMeta } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { peerDependenciesMeta: Record<string, { optional?: boolean }> };
const PEERS = Object.keys(peerDependenciesMeta).filter((peer) => peerDependenciesMeta[peer]?.optional === true);
const webhooks = entry('payorch/webhooks');
describe.each([...entries, webhooks.source, webhooks.esm, webhooks.cjs])('the entry %s', (entry) => {
  test('reaches no queue adapter (no module of src/queues/ or dist/queues/, no optional peer, no value an adapter exports)', async () => {
    const mainValues = Object.keys((await import(pathToFileURL(join(root, main.esm)).href)) as object);
    const adapterValues = (await Promise.all(ADAPTERS.map(async (adapter) => Object.keys((await import(pathToFileURL(join(root, adapter.esm)).href)) as object)))).flat();
    const own = adapterValues.filter((name) => !mainValues.includes(name));
    expect(own.length).toBeGreaterThan(0);
    const { inputs, packages, code } = await graph(entry);
    expect(inputs.length).toBeGreaterThan(0);
    expect(packages.filter((name) => PEERS.some((peer) => name === peer || name.startsWith(`${peer}/`)))).toEqual([]);
    expect(inputs.filter((file) => /(?:src|dist)\/queues\//.test(file))).toEqual([]);
    expect(own.filter((name) => new RegExp(`\\b${name}\\b`).test(code))).toEqual([]);
    expect(code).not.toMatch(/payorch_dead_letters|FOR UPDATE SKIP LOCKED|payorch-callbacks-dead/);
  });
});

test('the BullMQ entry imports bullmq and no other package: BullMQ loads ioredis itself, when it connects', async () => {
  const bullmq = entry('payorch/bullmq');
  for (const file of [bullmq.source, bullmq.esm, bullmq.cjs]) {
    const { packages, code } = await graph(file);
    expect([...new Set(packages)], file).toEqual(['bullmq']);
    expect(code, file).toContain('createBullMQQueue');
  }
});

test('the pg-boss entry imports no package, neither pg-boss nor pg: the PgBoss and the pool are the user’s', async () => {
  const { source } = entry('payorch/pg-boss');
  const { inputs, packages, code } = await graph(source);
  expect(inputs.some((file) => file.endsWith(source))).toBe(true);
  expect(packages).toEqual([]);
  expect(code).toContain('FOR UPDATE SKIP LOCKED');
});

test('the PostgreSQL entry itself imports no pg either: the pool is the user’s', async () => {
  const { source } = entry('payorch/postgres');
  const { inputs, packages } = await graph(source);
  expect(inputs.some((file) => file.endsWith(source))).toBe(true);
  expect(packages).toEqual([]);
});

// A webhook route that only verifies (or receives) callbacks bundles no zod: verification reads
// bodies by its field tables (src/webhooks/payload.ts), and dist/ marks its module-level schema
// calls pure so that a bundler drops them (docs/decisions.md). Bundled for the edge as
// bench/figures/bundle.ts measures it; zod's constructor names survive minifying.
async function edgeBundle(names: string): Promise<string> {
  const result = await build({
    stdin: { contents: `export { ${names} } from ${JSON.stringify(join(root, main.esm))};`, resolveDir: root, loader: 'js' },
    bundle: true,
    minify: true,
    write: false,
    platform: 'neutral',
    conditions: ['edge-light', 'worker', 'browser', 'import', 'default'],
    mainFields: ['module', 'main'],
    tsconfigRaw: '{}',
    logLevel: 'silent',
  });
  return result.outputFiles[0]?.text ?? '';
}

describe('an edge bundle of the built package', () => {
  test.each(['verifyCallback', 'verifyCallback, createCallbackReceiver, createMemoryInbox'])('of { %s } holds no zod', async (names) => {
    const code = await edgeBundle(names);
    expect(code).toContain('tracking_code');
    expect(code).not.toContain('$ZodType');
  });

  test('of the clients holds zod, which parses their answers (the check above is not vacuous)', async () => {
    expect(await edgeBundle('ProviderClient')).toContain('$ZodType');
  });
});

// payorch/schemas is the schemas alone: a module that only validates or parses loads no client,
// no transport, no ky and no Node built-in, on every runtime. zod is bundled into dist/, so the
// built entry imports no package at all (ky would show here if the transport were reached).
const schemas = entry('payorch/schemas');
test.each([
  [schemas.source, ['zod/mini', 'zod/v4/core']],
  [schemas.esm, []],
  [schemas.cjs, []],
])('the entry %s imports no package but zod, and no client', async (entry, packages) => {
  const graphOf = await graph(entry);
  expect([...new Set(graphOf.packages)].sort()).toEqual(packages);
  expect(graphOf.inputs.filter((file) => /client|transport/.test(file))).toEqual([]);
  expect(graphOf.code).toContain('tracking_code');
});
