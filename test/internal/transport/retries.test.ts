import { createServer } from 'node:http';
import { describe, expect, test } from 'vitest';
import { APIError, ConnectionError, DealerClient, TimeoutError } from '../../../src/index.js';
import type { ProviderClientOptions, ResponseEvent } from '../../../src/index.js';
import { CUSTOMER, DEPOSIT, WELCOME, freePort, refusedPort, json, noBackoff, providerFor, startServer, closeLoopbackServers } from '../../helpers/loopback.js';
import { DEALER_CALLS, DEALER_PAYMENT_CALLS, PAYMENT_CALLS, PROVIDER_CALLS, definedOperations } from '../../helpers/api-calls.js';
import { DEALER, PROVIDER, sha256 } from '../../helpers/wire.js';

closeLoopbackServers();

const TRANSIENT = [408, 429, 500, 502, 503, 504];

describe('resendable calls', () => {
  test('are retried after the connection is reset before an answer', async () => {
    noBackoff();
    const server = await startServer((request, response, n) => (n === 1 ? request.socket.resetAndDestroy() : json(response, 200, WELCOME)));
    await expect(providerFor(server).welcome()).resolves.toEqual(WELCOME);
    expect(server.seen).toHaveLength(2);
  });

  test.each(TRANSIENT)('are retried after HTTP %i', async (status) => {
    noBackoff();
    const server = await startServer((_request, response, n) => (n === 1 ? json(response, status, { success: false, error: 'busy' }) : json(response, 200, WELCOME)));
    await expect(providerFor(server).welcome()).resolves.toEqual(WELCOME);
    expect(server.seen).toHaveLength(2);
  });

  test.each([400, 401, 403, 404, 422])('are not retried after HTTP %i, which will not change', async (status) => {
    noBackoff();
    const server = await startServer((_request, response) => { json(response, status, { success: false, error: 'no' }); });
    const error = await providerFor(server).welcome().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(status);
    expect(server.seen).toHaveLength(1);
  });

  test('give up after maxRetries (2 by default) and throw the last answer', async () => {
    noBackoff();
    const server = await startServer((_request, response) => { json(response, 503, { success: false, error: 'down' }); });
    const error = await providerFor(server).welcome().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(503);
    expect(server.seen).toHaveLength(3);
  });

  test('take maxRetries from the client, and from the call over the client', async () => {
    noBackoff();
    const server = await startServer((_request, response) => { json(response, 500, { success: false }); });
    const client = providerFor(server, { maxRetries: 4 });
    await client.welcome().catch(() => undefined);
    expect(server.seen).toHaveLength(5);
    await client.welcome({ maxRetries: 0 }).catch(() => undefined);
    expect(server.seen).toHaveLength(6);
    await client.welcome({ maxRetries: 1 }).catch(() => undefined);
    expect(server.seen).toHaveLength(8);
  });

  test('wait exactly as long as Retry-After asks on a 429', async () => {
    const events: ResponseEvent[] = [];
    const server = await startServer((_request, response, n) => (n === 1 ? json(response, 429, { success: false, error: 'slow down' }, { 'retry-after': '1' }) : json(response, 200, WELCOME)),
    );
    await providerFor(server, { onResponse: (event) => events.push(event) }).welcome();
    expect(events.map((event) => [event.status, event.retryDelayMs])).toEqual([
      [429, 1000],
      [200, undefined],
    ]);
    expect(server.seen).toHaveLength(2);
  });

  test('wait between two attempts the retryDelayMs they announce, and no longer', async () => {
    // ky runs the retry loop: its own backoff (300 ms for a first retry) must not add to payorch's wait.
    const seen: { readonly at: number; readonly kind: 'request' | 'response'; readonly retryDelayMs?: number | undefined }[] = [];
    const server = await startServer((_request, response, n) => (n === 1 ? json(response, 503, { success: false, error: 'busy' }, { 'retry-after': '0.2' }) : json(response, 200, WELCOME)));
    await providerFor(server, {
      onRequest: () => seen.push({ at: performance.now(), kind: 'request' }),
      onResponse: (event) => seen.push({ at: performance.now(), kind: 'response', retryDelayMs: event.retryDelayMs }),
    }).welcome();
    expect(seen.map((entry) => [entry.kind, entry.retryDelayMs])).toEqual([['request', undefined], ['response', 200], ['request', undefined], ['response', undefined]]);
    const gap = seen[2]!.at - seen[1]!.at;
    expect(gap).toBeGreaterThanOrEqual(195);
    expect(gap).toBeLessThan(450);
  });

  test('are not retried when Retry-After asks for longer than the 20 s cap', async () => {
    const server = await startServer((_request, response) => { json(response, 503, { success: false, error: 'maintenance' }, { 'retry-after': '3600' }); });
    const error = await providerFor(server).welcome().catch((caught: unknown) => caught);
    expect((error as APIError).status).toBe(503);
    expect((error as APIError).headers['retry-after']).toBe('3600');
    expect(server.seen).toHaveLength(1);
  });

  test('are not retried when the wait would outlast the call deadline', async () => {
    const server = await startServer((_request, response) => { json(response, 429, { success: false }, { 'retry-after': '5' }); });
    const error = await providerFor(server, { timeout: 2_000 }).welcome().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIError);
    expect(server.seen).toHaveLength(1);
  });

  test('sign every attempt afresh: a new timestamp and the hash of that timestamp', async () => {
    noBackoff();
    let tick = Date.now();
    const server = await startServer((_request, response, n) => (n < 3 ? json(response, 502, {}) : json(response, 200, { success: true, data: { tracking_code: 'CC-1', status: 'success', amount: 150 } })));
    // Each reading of the clock is one second later, so every attempt falls in a new second.
    const client = providerFor(server, { now: () => (tick += 1000) });
    await client.creditCard.getStatus({ tracking_code: 'CC-1' }).catch(() => undefined);
    expect(server.seen).toHaveLength(3);
    const timestamps = server.seen.map((request) => String(request.headers['x-timestamp']));
    expect(new Set(timestamps).size).toBe(3);
    for (const request of server.seen) {
      expect(request.headers['x-hash']).toBe(sha256(PROVIDER.apiKey, PROVIDER.secretKey, String(request.headers['x-timestamp'])));
    }
    expect(new Set(server.seen.map((request) => request.headers['x-hash'])).size).toBe(3);
  });
});

describe('calls that create a money movement', () => {
  test('the registry holds every endpoint row of both clients, and each non-resendable one is among the calls below', async () => {
    expect(PROVIDER_CALLS.map((call) => call.endpoint.operation).sort()).toEqual(await definedOperations('provider'));
    expect(DEALER_CALLS.map((call) => call.endpoint.operation).sort()).toEqual(await definedOperations('dealer'));
    // What decides the money rule: a call that creates a record is never resendable.
    for (const call of [...PAYMENT_CALLS, ...DEALER_PAYMENT_CALLS]) expect(call.endpoint.method, call.id).toBe('POST');
    expect(PAYMENT_CALLS.length + DEALER_PAYMENT_CALLS.length).toBeGreaterThan(0);
  });

  type Send = (url: string, options?: Partial<ProviderClientOptions>) => Promise<unknown>;
  const payments: [string, Send][] = [
    ...PAYMENT_CALLS.map((call): [string, Send] => [
      call.id,
      (url, options = {}) => call.invoke(providerFor({ url }, { credentialKey: PROVIDER.credentialKey, ...options }), call.valid as never).catch((caught: unknown) => caught),
    ]),
    ...DEALER_PAYMENT_CALLS.map((call): [string, Send] => [
      call.id,
      (url, options = {}) => call.invoke(new DealerClient({ baseUrl: url, ...DEALER, ...options }), call.valid as never).catch((caught: unknown) => caught),
    ]),
  ];

  // The transport decides a resend from the endpoint's resendable flag alone (mayResend in
  // src/internal/retry-policy.ts), so every money-moving call gets one check that it is not resent,
  // and the full set of failure cases runs on one call per client and per hash kind.
  test.each(payments)('%s is sent once when the service answers HTTP 503', async (_name, send) => {
    noBackoff();
    const server = await startServer((_request, response) => { json(response, 503, { success: false, error: 'busy' }, { 'retry-after': '0' }); });
    const error = await send(server.url);
    expect(error).toBeInstanceOf(APIError);
    expect(server.seen).toHaveLength(1);
  });

  // The first non-resendable call of each client and hash kind, in the registry's order.
  const kinds = new Map([...PAYMENT_CALLS, ...DEALER_PAYMENT_CALLS].map((call) => [`${call.row.api} ${call.endpoint.hash}`, call.id] as const).reverse());
  const REPRESENTATIVE = [...kinds.values()];
  test('the representative calls are money-moving calls of both clients', () => {
    expect(new Set([...kinds.keys()].map((kind) => kind.split(' ')[0]))).toEqual(new Set(['provider', 'dealer']));
    expect(REPRESENTATIVE.every((name) => payments.some(([candidate]) => candidate === name))).toBe(true);
  });

  describe.each(payments.filter(([name]) => REPRESENTATIVE.includes(name)))('%s', (_name, send) => {
    test.each(TRANSIENT)('is sent once when the service answers HTTP %i', async (status) => {
      noBackoff();
      const server = await startServer((_request, response) => { json(response, status, { success: false, error: 'busy' }, { 'retry-after': '0' }); });
      const error = await send(server.url);
      expect(error).toBeInstanceOf(APIError);
      expect(server.seen).toHaveLength(1);
    });

    test('is sent once when the connection is reset after the body was received', async () => {
      noBackoff();
      const server = await startServer((request) => request.socket.resetAndDestroy());
      const error = await send(server.url);
      expect(error).toBeInstanceOf(ConnectionError);
      expect((error as ConnectionError).refused).toBe(false);
      expect(server.seen).toHaveLength(1);
    });

    test('is sent once when the connection is reset after the headers', async () => {
      noBackoff();
      const server = await startServer((request, response) => {
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' });
        response.write('{"success":true,');
        setTimeout(() => request.socket.resetAndDestroy(), 20);
      });
      const error = await send(server.url);
      expect(error).toBeInstanceOf(ConnectionError);
      expect(server.seen).toHaveLength(1);
    });

    test('is sent once when no answer comes before the deadline', async () => {
      noBackoff();
      const server = await startServer(() => undefined);
      const error = await send(server.url, { timeout: 300 });
      expect(error).toBeInstanceOf(TimeoutError);
      expect(server.seen).toHaveLength(1);
    });

    test('is retried when the connection is refused, and fails with refused: true', async () => {
      noBackoff();
      let attempts = 0;
      const error = await send(`http://127.0.0.1:${await refusedPort()}`, { onRequest: () => attempts++ });
      expect(error).toBeInstanceOf(ConnectionError);
      expect((error as ConnectionError).refused).toBe(true);
      expect(attempts).toBe(3);
    });
  });

  test('reach a server that starts after a refused attempt, exactly once', async () => {
    noBackoff();
    const port = await freePort();
    const seen: string[] = [];
    const late = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        seen.push(String(request.headers['x-hash']));
        json(response, 200, DEPOSIT);
      });
    });
    const client = providerFor(
      { url: `http://127.0.0.1:${port}` },
      {
        credentialKey: PROVIDER.credentialKey,
        // Binding an IP address is synchronous, so the next attempt finds the server listening.
        onResponse: (event) => {
          if (event.attempt === 1) late.listen(port, '127.0.0.1');
        },
      },
    );
    try {
      await expect(client.manual.startDeposit({ ...CUSTOMER, amount: 250 })).resolves.toEqual(DEPOSIT);
      expect(seen).toHaveLength(1);
    } finally {
      late.closeAllConnections();
      late.close();
    }
  });

  test('a raw request is sent at most once unless it says resendable: true', async () => {
    noBackoff();
    const server = await startServer((_request, response) => { json(response, 503, {}); });
    const client = providerFor(server);
    await client.request({ method: 'POST', path: '/new', hash: 'basic' }).catch(() => undefined);
    expect(server.seen).toHaveLength(1);
    await client.request({ method: 'POST', path: '/new', hash: 'basic', resendable: true }).catch(() => undefined);
    expect(server.seen).toHaveLength(4);
  });
});
