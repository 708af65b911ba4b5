import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { requireBuilt } from '../helpers/dist.js';
import { describe, expect, test } from 'vitest';

// BullMQ and ioredis are optional peers of payorch/bullmq alone: payorch and payorch/webhooks never
// load them, nor the adapter written for them. Checked twice: in the module graph a bundler sees
// (packages left external), and at a cold start, where a fresh Node process records every module
// it resolves while importing the built entries.
const root = join(import.meta.dirname, '..', '..');
requireBuilt('dist/index.js', 'dist/index.cjs', 'dist/webhooks/index.js', 'dist/webhooks/index.cjs', 'dist/bullmq/index.js', 'dist/bullmq/index.cjs');

async function graph(entry: string): Promise<{ inputs: string[]; packages: string[] }> {
  const result = await build({ entryPoints: [join(root, entry)], bundle: true, write: false, metafile: true, platform: 'neutral', packages: 'external', logLevel: 'silent' });
  const packages = Object.values(result.metafile.inputs).flatMap((input) => input.imports.filter((each) => each.external).map((each) => each.path));
  return { inputs: Object.keys(result.metafile.inputs), packages: [...new Set(packages)].sort() };
}

const engine = (name: string) => /^(?:bullmq|ioredis)(?:\/|$)/.test(name);

describe.each(['src/index.ts', 'dist/index.js', 'dist/index.cjs', 'src/webhooks/index.ts', 'dist/webhooks/index.js', 'dist/webhooks/index.cjs'])('the module graph of %s', (entry) => {
  test('reaches neither bullmq, ioredis nor the BullMQ adapter', async () => {
    const { inputs, packages } = await graph(entry);
    expect(inputs.length).toBeGreaterThan(0);
    expect(packages.filter(engine)).toEqual([]);
    expect(inputs.filter((file) => /(?:src|dist)\/bullmq\//.test(file))).toEqual([]);
  });
});

test('the BullMQ entry imports bullmq and nothing else outside payorch: no ioredis of its own, no Node built-in', async () => {
  for (const entry of ['src/bullmq/index.ts', 'dist/bullmq/index.js', 'dist/bullmq/index.cjs']) {
    expect((await graph(entry)).packages, entry).toEqual(['bullmq']);
  }
});

// Every module a fresh process resolves while it imports the entries named, ESM or CommonJS.
function resolvedAtStart(format: 'esm' | 'cjs', entries: readonly string[]): string[] {
  const load = entries.map((entry) => (format === 'esm' ? `await import(${JSON.stringify(pathToFileURL(join(root, `dist/${entry}.js`)).href)});` : `require(${JSON.stringify(join(root, `dist/${entry}.cjs`))});`));
  const script = `
const { registerHooks } = require('node:module');
const resolved = [];
registerHooks({ resolve(specifier, context, next) { const found = next(specifier, context); resolved.push(found.url); return found; } });
(async () => {
  ${load.join('\n  ')}
  process.stdout.write(JSON.stringify(resolved));
})();`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: root, encoding: 'utf8' })) as string[];
}

const engineModule = (url: string) => /\/node_modules\/(?:bullmq|ioredis)\/|\/dist\/bullmq\//.test(url);

describe.each(['esm', 'cjs'] as const)('a cold start (%s)', (format) => {
  test('of payorch and payorch/webhooks loads no module of bullmq, ioredis or the BullMQ adapter', () => {
    const resolved = resolvedAtStart(format, ['index', 'webhooks/index']);
    expect(resolved.some((url) => url.includes('/dist/webhooks/'))).toBe(true);
    expect(resolved.filter(engineModule)).toEqual([]);
  });

  // BullMQ itself loads ioredis only when it opens a connection.
  test('of payorch/bullmq loads bullmq: the check above is not vacuous', () => {
    const resolved = resolvedAtStart(format, ['bullmq/index']);
    expect(resolved.filter(engineModule).length).toBeGreaterThan(1);
    expect(resolved.some((url) => url.includes('/node_modules/bullmq/'))).toBe(true);
  });
});
