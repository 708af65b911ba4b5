import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { signCallback } from '../../src/index.js';
import { unsigned } from '../helpers/callbacks.js';
import { deliver } from '../helpers/serve.js';
import { PROVIDER } from '../helpers/wire.js';

// The Cloudflare Worker example in workerd (miniflare), bundled as wrangler would, reached over
// real HTTP on the address workerd listens on. No nodejs_compat: the main entry needs no Node built-in.
const root = join(import.meta.dirname, '..', '..');
let miniflare: Miniflare;
let url: string;

beforeAll(async () => {
  const bundle = await build({
    entryPoints: [join(root, 'examples/webhooks/cloudflare-worker.ts')],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    conditions: ['workerd', 'worker', 'browser'],
    mainFields: ['module', 'main'],
    alias: { payorch: join(root, 'src/index.ts') },
    logLevel: 'silent',
  });
  miniflare = new Miniflare({
    modules: true,
    script: bundle.outputFiles[0]!.text,
    compatibilityDate: '2025-09-01',
    bindings: { PAYORCH_PROVIDER_API_KEY: PROVIDER.apiKey, PAYORCH_PROVIDER_SECRET_KEY: PROVIDER.secretKey },
  });
  url = new URL('/webhooks/payorch', await miniflare.ready).href;
}, 60_000);
afterAll(async () => {
  await miniflare.dispose();
});

test('the worker answers 200 {"success":true} to a signed callback and to its redelivery', async () => {
  const delivery = signCallback({ ...unsigned.deposit, tracking_code: 'MAN-worker01-1763812000' }, PROVIDER);
  expect(await deliver(url, delivery)).toEqual({ status: 200, body: { success: true } });
  expect(await deliver(url, delivery)).toEqual({ status: 200, body: { success: true } });
});

test('the worker answers 401 to a forged callback, 405 to GET and 413 to an oversized body', async () => {
  const forged = signCallback({ ...unsigned.deposit }, { apiKey: PROVIDER.apiKey, secretKey: 'guessed' });
  expect(await deliver(url, forged)).toEqual({ status: 401, body: { success: false, error: 'invalid_signature' } });
  expect((await fetch(url)).status).toBe(405);
  const { headers } = signCallback({ ...unsigned.deposit }, PROVIDER);
  expect(await deliver(url, { headers, body: ' '.repeat(70_000) })).toEqual({ status: 413, body: { success: false, error: 'body_too_large' } });
});
