import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { orderTable } from '../../examples/webhooks/orders.js';
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
  // The order rows the route confirms its callbacks against.
  for (const code of ['MAN-next01-1763812000', 'MAN-next04-1763812000']) orderTable.save(code, { userId: 'u-1', kind: 'deposit', amount: 200, maxAmount: 1000 });
  for (const code of ['WIT-next02-1763812000', 'WIT-next03-1763812000', 'WIT-next05-1763812000']) orderTable.save(code, { userId: 'u-1', kind: 'withdrawal', amount: unsigned.withdrawal.amount });
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

test('the route refunds a rejected withdrawal, and flags instead of refunding one rejected after it was completed', async () => {
  const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  const code = 'WIT-next02-1763812000';
  await deliver(served.url, signCallback({ ...unsigned.withdrawal, tracking_code: code, status: 'rejected' }, PROVIDER));
  expect(log.mock.calls).toEqual([[`refund u-1 1200.5 for ${code} (rejected)`]]);
  const paid = 'WIT-next05-1763812000';
  await deliver(served.url, signCallback({ ...unsigned.withdrawal, tracking_code: paid, status: 'completed' }, PROVIDER));
  await deliver(served.url, signCallback({ ...unsigned.withdrawal, tracking_code: paid, status: 'rejected' }, PROVIDER));
  expect(log.mock.calls).toHaveLength(1);
  // The receiver's own line about a second end status comes first, from its default console logger.
  expect(warn.mock.calls.at(-1)).toEqual([`withdrawal ${paid} was completed, now rejected: not refunded automatically`]);
  expect(warn.mock.calls).toHaveLength(2);
});

test('the route refunds a canceled withdrawal once, after a rejection too', async () => {
  const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
  const code = 'WIT-next03-1763812000';
  await deliver(served.url, signCallback({ ...unsigned.withdrawal, tracking_code: code, status: 'canceled' }, PROVIDER));
  await deliver(served.url, signCallback({ ...unsigned.withdrawal, tracking_code: code, status: 'rejected' }, PROVIDER));
  expect(log.mock.calls).toEqual([[`refund u-1 1200.5 for ${code} (canceled)`]]);
});

test('the route refuses with 409 a replayed deposit naming another user, and credits the genuine one to your order\'s user', async () => {
  const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  const genuine = signCallback({ ...unsigned.deposit, tracking_code: 'MAN-next04-1763812000' }, PROVIDER);
  const replay = { headers: genuine.headers, body: JSON.stringify({ ...(JSON.parse(genuine.body) as object), user_id: 'attacker', amount: 250_000 }) };
  expect(await deliver(served.url, replay)).toEqual({ status: 409, body: { success: false, error: 'not_confirmed' } });
  expect(await deliver(served.url, genuine)).toEqual({ status: 200, body: { success: true } });
  expect(log.mock.calls).toEqual([['credit u-1 with 250 for MAN-next04-1763812000']]);
});

test('the route answers 401 to a forged callback and 413 to an oversized body', async () => {
  const forged = signCallback({ ...unsigned.deposit }, { apiKey: PROVIDER.apiKey, secretKey: 'guessed' });
  expect(await deliver(served.url, forged)).toEqual({ status: 401, body: { success: false, error: 'invalid_signature' } });
  const { headers } = signCallback({ ...unsigned.deposit }, PROVIDER);
  expect((await deliver(served.url, { headers, body: ' '.repeat(70_000) })).status).toBe(413);
});
