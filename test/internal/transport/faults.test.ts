import { setTimeout as wait } from 'node:timers/promises';
import { describe, expect, test } from 'vitest';
import { APIError, ConnectionError, ResponseValidationError, TimeoutError } from '../../../src/index.js';
import { CUSTOMER, DEPOSIT, WELCOME, json, noBackoff, providerFor, startServer, closeLoopbackServers } from '../../helpers/loopback.js';
import type { Behaviour } from '../../helpers/loopback.js';
import { PROVIDER } from '../../helpers/wire.js';

closeLoopbackServers();

const TEN_MB = 10 * 1024 * 1024;

/** The same fault against a read-only call and a payment, with the attempts each may make. */
async function both(behave: Behaviour, options: { timeout?: number } = {}) {
  noBackoff();
  const readServer = await startServer(behave);
  const payServer = await startServer(behave);
  const read = await providerFor(readServer, options).welcome().catch((caught: unknown) => caught);
  const pay = await providerFor(payServer, { ...options, credentialKey: PROVIDER.credentialKey })
    .manual.startDeposit({ ...CUSTOMER, amount: 250 })
    .catch((caught: unknown) => caught);
  return { read, pay, readAttempts: readServer.seen.length, payAttempts: payServer.seen.length };
}

describe('faults on a real socket', () => {
  test('a reset before the headers is a ConnectionError; a read is retried, a payment is not', async () => {
    const result = await both((request) => request.socket.resetAndDestroy());
    expect(result.read).toBeInstanceOf(ConnectionError);
    expect(result.pay).toBeInstanceOf(ConnectionError);
    expect((result.pay as ConnectionError).refused).toBe(false);
    expect([result.readAttempts, result.payAttempts]).toEqual([3, 1]);
  });

  test('a socket closed without an answer is a ConnectionError', async () => {
    const result = await both((request) => request.socket.destroy());
    expect(result.pay).toBeInstanceOf(ConnectionError);
    expect([result.readAttempts, result.payAttempts]).toEqual([3, 1]);
  });

  test('a reset after the headers is a ConnectionError; a read is retried, a payment is not', async () => {
    const result = await both((request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      response.flushHeaders();
      setTimeout(() => request.socket.resetAndDestroy(), 20);
    });
    expect(result.read).toBeInstanceOf(ConnectionError);
    expect(result.pay).toBeInstanceOf(ConnectionError);
    expect([result.readAttempts, result.payAttempts]).toEqual([3, 1]);
  });

  test('headers that never come end in a TimeoutError at the deadline, with no retry', async () => {
    const result = await both(() => undefined, { timeout: 300 });
    expect(result.read).toBeInstanceOf(TimeoutError);
    expect((result.read as TimeoutError).timeout).toBe(300);
    expect(result.pay).toBeInstanceOf(TimeoutError);
    expect([result.readAttempts, result.payAttempts]).toEqual([1, 1]);
  });

  test('a custom fetch that ignores the signal and never settles still ends in a TimeoutError at the deadline', async () => {
    let called = 0;
    const fetch = (): Promise<Response> => {
      called += 1;
      return new Promise<Response>(() => undefined);
    };
    const server = await startServer(() => undefined);
    const started = performance.now();
    const error: unknown = await providerFor(server, { timeout: 300, fetch, credentialKey: PROVIDER.credentialKey }).manual.startDeposit({ ...CUSTOMER, amount: 250 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TimeoutError);
    // Handed to a fetch that may have sent it.
    expect((error as TimeoutError).outcome).toBe('unknown');
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(called).toBe(1);
  });

  test('a body that stalls ends in a TimeoutError at the deadline', async () => {
    const result = await both((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      response.write('{"success":true,');
    }, { timeout: 300 });
    expect(result.read).toBeInstanceOf(TimeoutError);
    expect(result.pay).toBeInstanceOf(TimeoutError);
    expect([result.readAttempts, result.payAttempts]).toEqual([1, 1]);
  });

  test('JSON cut short by a closed connection is a ConnectionError', async () => {
    const result = await both((request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      response.end('{"success":true,"pro');
      request.socket.end();
    });
    expect(result.pay).toBeInstanceOf(ConnectionError);
    expect([result.readAttempts, result.payAttempts]).toEqual([3, 1]);
  });

  test('a complete answer whose JSON is truncated is an APIError keeping the text', async () => {
    const result = await both((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"success":true,"data":{"tracking_');
    });
    expect(result.pay).toBeInstanceOf(APIError);
    expect((result.pay as APIError).body).toBe('{"success":true,"data":{"tracking_');
    expect((result.pay as APIError).message).toMatch(/not JSON \(HTTP 200, POST \/api\/provider\/start-manual-deposit\)/);
    // The service answered 200: reading it again would not help, and might not be safe.
    expect([result.readAttempts, result.payAttempts]).toEqual([1, 1]);
  });

  test("a proxy's HTML error page is an APIError with the page as its body", async () => {
    const page = '<html><body><h1>502 Bad Gateway</h1></body></html>';
    const result = await both((_request, response) => {
      response.writeHead(502, { 'content-type': 'text/html' });
      response.end(page);
    });
    expect(result.read).toBeInstanceOf(APIError);
    expect((result.pay as APIError).status).toBe(502);
    expect((result.pay as APIError).body).toBe(page);
    expect([result.readAttempts, result.payAttempts]).toEqual([3, 1]);
  });

  test('an HTML page with status 200 (a captive portal) is an APIError, not a success', async () => {
    const result = await both((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<html>Sign in to the network</html>');
    });
    expect(result.pay).toBeInstanceOf(APIError);
    expect((result.pay as APIError).status).toBe(200);
    expect([result.readAttempts, result.payAttempts]).toEqual([1, 1]);
  });

  test.each([200, 204, 500])('an empty body with status %i is an APIError', async (status) => {
    const result = await both((_request, response) => {
      response.writeHead(status);
      response.end();
    });
    expect(result.pay).toBeInstanceOf(APIError);
    expect((result.pay as APIError).message).toMatch(/empty body/);
    expect(result.payAttempts).toBe(1);
    expect(result.readAttempts).toBe(status === 500 ? 3 : 1);
  });

  test('a JSON answer of the wrong shape is a ResponseValidationError keeping the raw body', async () => {
    const result = await both((_request, response) => { json(response, 200, { success: true, data: { amount: 'lots' } }); });
    expect(result.pay).toBeInstanceOf(ResponseValidationError);
    expect((result.pay as ResponseValidationError).rawBody).toBe('{"success":true,"data":{"amount":"lots"}}');
    expect([result.readAttempts, result.payAttempts]).toEqual([1, 1]);
  });

  test.each([
    ['with a Content-Length', true],
    ['streamed in chunks', false],
  ])('a 10 MB body %s is refused over the 4 MB default cap', async (_label, withLength) => {
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    const result = await both((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', ...(withLength ? { 'content-length': String(TEN_MB) } : {}) });
      const send = (left: number): void => {
        if (left === 0 || response.destroyed) {
          response.end();
          return;
        }
        if (response.write(chunk)) send(left - 1);
        else response.once('drain', () => { send(left - 1); });
      };
      response.on('error', () => undefined);
      send(10);
    });
    expect(result.pay).toBeInstanceOf(APIError);
    expect((result.pay as APIError).message).toMatch(/larger than maxResponseBytes \(4194304 bytes\)/);
    expect([result.readAttempts, result.payAttempts]).toEqual([1, 1]);
  });
});

describe('keep-alive sockets closed by the server', () => {
  test('a socket the server closed while idle is not reused: the next call opens a new one', async () => {
    const server = await startServer(
      (_request, response) => { json(response, 200, WELCOME); },
      (http) => {
        http.keepAliveTimeout = 50;
      },
    );
    const client = providerFor(server, { maxRetries: 0 });
    await client.welcome();
    await wait(200);
    await expect(client.welcome()).resolves.toEqual(WELCOME);
    expect(server.connections).toBe(2);
  });

  test('a kept-alive socket dropped under the second request: a payment fails once, a read is retried', async () => {
    noBackoff();
    // The first answer keeps the socket open; the second request on it is read, then dropped.
    const drop: Behaviour = (request, response, n) => (n === 2 ? request.socket.destroy() : json(response, 200, n === 1 ? WELCOME : DEPOSIT));
    const payServer = await startServer(drop);
    const client = providerFor(payServer, { credentialKey: PROVIDER.credentialKey });
    await client.welcome();
    const error = await client.manual.startDeposit({ ...CUSTOMER, amount: 250 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(payServer.seen).toHaveLength(2);

    const readServer = await startServer((request, response, n) => (n === 2 ? request.socket.destroy() : json(response, 200, WELCOME)));
    const reader = providerFor(readServer);
    await reader.welcome();
    await expect(reader.welcome()).resolves.toEqual(WELCOME);
    expect(readServer.seen).toHaveLength(3);
  });
});
