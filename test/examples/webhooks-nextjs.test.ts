import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { signCallback } from '../../src/index.js';
import { unsigned } from '../helpers/callbacks.js';
import { deliver, serveFetch } from '../helpers/serve.js';
import type { Served } from '../helpers/serve.js';
import { PROVIDER } from '../helpers/wire.js';

// The Next.js route module (examples/webhooks/nextjs-route.ts) over real HTTP: a small node
// adapter hands POST requests to its POST export as Next.js does, and answers 405 to the others.
let served: Served;

beforeAll(async () => {
  vi.stubEnv('PAYORCH_PROVIDER_API_KEY', PROVIDER.apiKey);
  vi.stubEnv('PAYORCH_PROVIDER_SECRET_KEY', PROVIDER.secretKey);
  const route = await import('../../examples/webhooks/nextjs-route.js');
  served = await serveFetch((request) => (request.method === 'POST' ? route.POST(request) : new Response(null, { status: 405 })));
});
afterAll(async () => {
  await served.close();
  vi.unstubAllEnvs();
});

test('the route credits a completed deposit once, and acknowledges its redelivery', async () => {
  const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
  const delivery = signCallback({ ...unsigned.deposit, tracking_code: 'MAN-next01-1763812000' }, PROVIDER);
  expect(await deliver(served.url, delivery)).toEqual({ status: 200, body: { success: true } });
  expect(await deliver(served.url, delivery)).toEqual({ status: 200, body: { success: true } });
  expect(log.mock.calls).toEqual([['credit u-1 with 250 for MAN-next01-1763812000']]);
});

test('the route refunds a rejected withdrawal and only acknowledges a completed one', async () => {
  const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
  const code = 'WIT-next02-1763812000';
  await deliver(served.url, signCallback({ ...unsigned.withdrawal, tracking_code: code, status: 'completed' }, PROVIDER));
  await deliver(served.url, signCallback({ ...unsigned.withdrawal, tracking_code: code, status: 'rejected' }, PROVIDER));
  expect(log.mock.calls).toEqual([[`refund u-1 1200.5 for ${code} (rejected)`]]);
});

test('the route answers 401 to a forged callback and 413 to an oversized body', async () => {
  const forged = signCallback({ ...unsigned.deposit }, { apiKey: PROVIDER.apiKey, secretKey: 'guessed' });
  expect(await deliver(served.url, forged)).toEqual({ status: 401, body: { success: false, error: 'invalid_signature' } });
  const { headers } = signCallback({ ...unsigned.deposit }, PROVIDER);
  expect((await deliver(served.url, { headers, body: ' '.repeat(70_000) })).status).toBe(413);
});
