import { build } from 'esbuild';
import { Miniflare } from '../helpers/miniflare.js';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { signCallback } from '../../src/index.js';
import { unsigned, withUnsigned } from '../helpers/callbacks.js';
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
    kvNamespaces: ['ORDERS'],
  });
  // The order rows the callbacks below are for, as the application wrote them when it started each payment.
  // Typed here: miniflare's own types need @cloudflare/workers-types, which is not installed.
  const orders = (await miniflare.getKVNamespace('ORDERS')) as unknown as { put(key: string, value: string): Promise<void> };
  for (const code of ['MAN-worker01-1763812000', 'MAN-worker02-1763812000', 'MAN-worker04-1763812000']) await orders.put(code, JSON.stringify({ userId: 'u-1', kind: 'deposit', amount: 200, maxAmount: 500 }));
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

test('the worker answers 409 to a replayed deposit naming another user, and 200 to the genuine delivery after it', async () => {
  const genuine = signCallback({ ...unsigned.deposit, tracking_code: 'MAN-worker02-1763812000' }, PROVIDER);
  const replay = withUnsigned(genuine, { user_id: 'attacker', amount: 250_000 });
  expect(await deliver(url, replay)).toEqual({ status: 409, body: { success: false, error: 'not_confirmed' } });
  expect(await deliver(url, genuine)).toEqual({ status: 200, body: { success: true } });
});

test('the worker answers 409 to a genuine signature over an amount past the order’s ceiling', async () => {
  const genuine = signCallback({ ...unsigned.deposit, tracking_code: 'MAN-worker04-1763812000' }, PROVIDER);
  expect(await deliver(url, withUnsigned(genuine, { amount: 500.01 }))).toEqual({ status: 409, body: { success: false, error: 'not_confirmed' } });
  expect(await deliver(url, genuine)).toEqual({ status: 200, body: { success: true } });
});

test('the worker answers 409 to a genuine callback that is not one of your orders', async () => {
  expect(await deliver(url, signCallback({ ...unsigned.deposit, tracking_code: 'MAN-worker03-1763812000' }, PROVIDER))).toEqual({ status: 409, body: { success: false, error: 'not_confirmed' } });
});

test('the worker answers 401 to a forged callback, 405 to GET and 413 to an oversized body', async () => {
  const forged = signCallback({ ...unsigned.deposit }, { apiKey: PROVIDER.apiKey, secretKey: 'guessed' });
  expect(await deliver(url, forged)).toEqual({ status: 401, body: { success: false, error: 'invalid_signature' } });
  expect((await fetch(url)).status).toBe(405);
  const { headers } = signCallback({ ...unsigned.deposit }, PROVIDER);
  expect(await deliver(url, { headers, body: ' '.repeat(70_000) })).toEqual({ status: 413, body: { success: false, error: 'body_too_large' } });
});
