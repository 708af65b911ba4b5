import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { Deliverer } from '../../src/tools/sandbox/delivery.js';
import type { Callback } from '../../src/tools/sandbox/delivery.js';
import { createSandbox } from '../../src/tools/sandbox/index.js';
import { customer, providerOf, startReceiver } from '../helpers/sandbox.js';
import type { TestReceiver } from '../helpers/sandbox.js';

let receiver: TestReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

/** A callback whose signing is counted, so that each attempt is seen to sign afresh. */
function callback(url: string): Callback & { signed: number } {
  const state = {
    kind: 'deposit' as const,
    trackingCode: 'MAN-test0001-1768467600',
    status: 'completed',
    url,
    signed: 0,
    sign: () => {
      state.signed++;
      return { headers: { 'Content-Type': 'application/json' as const, 'X-Api-Key': 'k', 'X-Timestamp': '1', 'X-Hash': 'h' }, body: `{"attempt":${state.signed}}` };
    },
  };
  return state;
}

describe('callback delivery with bounded retries', () => {
  test('a receiver that fails twice gets a third attempt, and the callback counts as delivered', async () => {
    receiver = await startReceiver([500, 503, 200]);
    const target = callback(receiver.url);
    const result = await new Deliverer({ attempts: 5, backoffMs: 1 }).deliver(target);
    expect(result.delivered).toBe(true);
    expect(result.attempts.map((attempt) => [attempt.attempt, attempt.httpStatus, attempt.delivered])).toEqual([
      [1, 500, false],
      [2, 503, false],
      [3, 200, true],
    ]);
    expect(receiver.received.map((request) => request.body)).toEqual(['{"attempt":1}', '{"attempt":2}', '{"attempt":3}']);
    expect(target.signed).toBe(3);
  });

  test('attempts stop at the bound; every one is listed', async () => {
    receiver = await startReceiver([500]);
    const deliverer = new Deliverer({ attempts: 3, backoffMs: 1 });
    const result = await deliverer.deliver(callback(receiver.url));
    expect(result.delivered).toBe(false);
    expect(receiver.received).toHaveLength(3);
    expect(deliverer.attempts().map((attempt) => attempt.httpStatus)).toEqual([500, 500, 500]);
  });

  test('only 200 acknowledges: a 204 is a failed delivery', async () => {
    receiver = await startReceiver([204, 200]);
    const result = await new Deliverer({ attempts: 2, backoffMs: 1 }).deliver(callback(receiver.url));
    expect(result.attempts.map((attempt) => attempt.httpStatus)).toEqual([204, 200]);
  });

  test('the wait doubles between attempts', async () => {
    receiver = await startReceiver([500]);
    const { attempts } = await new Deliverer({ attempts: 3, backoffMs: 40 }).deliver(callback(receiver.url));
    const gaps = attempts.slice(1).map((attempt, index) => attempt.at.getTime() - (attempts[index]?.at.getTime() ?? 0));
    // Lower bounds only: a sleep never ends early.
    expect(gaps[0]).toBeGreaterThanOrEqual(40);
    expect(gaps[1]).toBeGreaterThanOrEqual(80);
  });

  test('a refused connection is a failed attempt with the reason, not a thrown error', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => { resolve(); }));
    const result = await new Deliverer({ attempts: 2, backoffMs: 1 }).deliver(callback(`http://127.0.0.1:${port}/callbacks`));
    expect(result.delivered).toBe(false);
    expect(result.attempts.map((attempt) => attempt.httpStatus)).toEqual([undefined, undefined]);
    expect(result.attempts[0]?.error).toMatch(/ECONNREFUSED|fetch failed/);
  });

  test('a receiver that does not answer in time is a failed attempt', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      const result = await new Deliverer({ attempts: 1, timeoutMs: 50 }).deliver(callback(`http://127.0.0.1:${port}/`));
      expect(result.attempts[0]).toMatchObject({ httpStatus: undefined, delivered: false, error: expect.stringMatching(/abort|timeout/i) });
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });

  test('a redirect is not followed and does not acknowledge', async () => {
    const redirecting = createServer((_request, response) => response.writeHead(307, { Location: 'http://127.0.0.1:9/elsewhere' }).end());
    await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
    const { port } = redirecting.address() as AddressInfo;
    try {
      const result = await new Deliverer({ attempts: 1 }).deliver(callback(`http://127.0.0.1:${port}/`));
      expect(result.attempts.map((attempt) => attempt.httpStatus)).toEqual([307]);
    } finally {
      redirecting.close();
    }
  });
});

describe('the sandbox delivery log', () => {
  test('deliveries() lists every attempt of settle(), and settle() resolves after the last', async () => {
    receiver = await startReceiver([500, 200]);
    const sandbox = createSandbox({ callbackUrls: { deposit: receiver.url }, callbackRetry: { backoffMs: 1 } });
    const { data } = await providerOf(sandbox).manual.startDeposit({ ...customer, amount: 100 });
    const { callback: result } = await sandbox.settle(data.tracking_code, 'completed');
    expect(result?.delivered).toBe(true);
    expect(sandbox.deliveries()).toEqual([
      { deliveryId: result?.id, callback: 'deposit', trackingCode: data.tracking_code, status: 'completed', url: receiver.url, attempt: 1, at: expect.any(Date), signedAt: expect.any(Date), httpStatus: 500, error: undefined, delivered: false },
      { deliveryId: result?.id, callback: 'deposit', trackingCode: data.tracking_code, status: 'completed', url: receiver.url, attempt: 2, at: expect.any(Date), signedAt: expect.any(Date), httpStatus: 200, error: undefined, delivered: true },
    ]);
  });

  test('five attempts by default', async () => {
    receiver = await startReceiver([500]);
    const sandbox = createSandbox({ callbackUrls: { deposit: receiver.url }, callbackRetry: { backoffMs: 1 } });
    const { data } = await providerOf(sandbox).manual.startDeposit({ ...customer, amount: 100 });
    expect((await sandbox.settle(data.tracking_code, 'canceled')).callback?.attempts).toHaveLength(5);
  });
});
