import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { createServer as createNetServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { ConnectionError, DealerClient, RequestAbortedError, TimeoutError } from '../../../src/index.js';
import type { ConnectionFailureReason, PayorchError } from '../../../src/index.js';
import { CUSTOMER, refusedPort, noBackoff, providerFor, startServer, closeLoopbackServers } from '../../helpers/loopback.js';
import { DEALER, PROVIDER } from '../../helpers/wire.js';

/*
 * A connection that fails before the request's first byte could leave is `not_sent`,
 * whatever broke it (the name, the connection, the TLS handshake), on real sockets on loopback;
 * one that fails after is `unknown`. Every such error names its call. The same checks run on Bun
 * and Deno in test/runtimes/smoke.mjs.
 */

closeLoopbackServers();

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/${name}`, import.meta.url));

interface Target {
  readonly url: string;
  /** Requests the listening server received; 0 where nothing listens. */
  readonly requests: () => number;
}

const tlsServers: { close(): void }[] = [];
afterEach(() => {
  for (const server of tlsServers.splice(0)) server.close();
});

/** An https server whose certificate the client does not trust (self-signed, for 127.0.0.1). */
async function selfSigned(): Promise<Target> {
  let requests = 0;
  const server = createServer({ key: fixture('loopback-key.pem'), cert: fixture('loopback-cert.pem') }, (_request, response) => {
    requests++;
    response.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  tlsServers.push({ close: () => { server.closeAllConnections(); server.close(); } });
  return { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: () => requests };
}

/** A TCP server that resets every connection it accepts: the client's connect ends in ECONNRESET. */
async function resetOnAccept(): Promise<Target> {
  const server = createNetServer((socket) => socket.resetAndDestroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  tlsServers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: () => 0 };
}

/**
 * A peer that reads the client's first handshake record (its ClientHello) and then ends the
 * connection, gracefully (`end`) or with a reset (`reset`), so nothing but the handshake could reach
 * it. It waits for that record, and reads it, because a close that races it is either: a reset
 * with the ClientHello unread, or an end before the client wrote it.
 */
async function closedInHandshake(close: 'end' | 'reset'): Promise<Target> {
  const server = createNetServer((socket) => {
    socket.once('data', () => (close === 'end' ? socket.end() : socket.resetAndDestroy()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  tlsServers.push(server);
  return { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: () => 0 };
}

const TARGETS: readonly (readonly [string, () => Promise<Target>, ConnectionFailureReason, number])[] = [
  // .invalid never resolves (RFC 6761): nothing outside this machine is asked to serve it.
  ['a host name that does not resolve', () => Promise.resolve({ url: 'https://payorch-sdk-test.invalid', requests: () => 0 }), 'name_not_resolved', 3],
  ['a refused connection', async () => ({ url: `https://127.0.0.1:${await refusedPort()}`, requests: () => 0 }), 'connection_refused', 3],
  ['a self-signed certificate', selfSigned, 'tls_handshake', 1],
  ['https to a plain-HTTP port', async () => {
    const server = await startServer((_request, response) => response.end('{}'));
    return { url: server.url.replace('http:', 'https:'), requests: () => server.seen.length };
  }, 'tls_handshake', 1],
  ['a server that resets the connection while it is made (connect ECONNRESET)', resetOnAccept, 'connection_refused', 3],
  ['a TLS server that closes during the handshake', () => closedInHandshake('end'), 'tls_handshake', 1],
];

describe('a connection that fails before the request could leave', () => {
  test.each(TARGETS)('%s: a payment call fails not_sent, named, the server saw nothing, and the attempts are the retry rule\'s', async (_name, target, reason, attempts) => {
    noBackoff();
    const { url, requests } = await target();
    let tried = 0;
    const client = providerFor({ url }, { credentialKey: PROVIDER.credentialKey, maxRetries: 2, allowInsecureHttp: true, onResponse: () => { tried++; } });
    const error = await client.manual.startDeposit({ ...CUSTOMER, amount: 250 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectionError);
    const failure = error as ConnectionError;
    expect({ outcome: failure.outcome, reason: failure.reason, refused: failure.refused }).toEqual({ outcome: 'not_sent', reason, refused: reason === 'connection_refused' });
    expect(failure.request).toEqual({ method: 'POST', url: `${url}/api/provider/start-manual-deposit` });
    expect(failure.operation).toBe('provider.manual.startDeposit');
    expect(failure.message).toMatch(/^POST \/api\/provider\/start-manual-deposit \(provider\.manual\.startDeposit\): .*\. Nothing was sent: it is safe to send again\.$/);
    expect(requests()).toBe(0);
    // Name and connection failures are retried, even for a payment (nothing was sent); a failed handshake is not.
    expect(tried).toBe(attempts);
  });
});

describe('a connection that fails after the request could leave', () => {
  const cases: readonly (readonly [string, (client: ReturnType<typeof providerFor>) => Promise<unknown>, abstract new (...args: never[]) => PayorchError, string])[] = [
    ['a reset mid-request', (client) => client.manual.startDeposit({ ...CUSTOMER, amount: 250 }), ConnectionError, 'POST /api/provider/start-manual-deposit (provider.manual.startDeposit): the connection failed after the request may have left. The service may have processed it: the deposit may have been created. Do not send it again; wait for its callback (docs/errors-and-retries.md).'],
    ['a timeout after connecting', (client) => client.manual.startDeposit({ ...CUSTOMER, amount: 250 }, { timeout: 300 }), TimeoutError, 'POST /api/provider/start-manual-deposit (provider.manual.startDeposit) did not complete within 300 ms. The service may have processed it: the deposit may have been created. Do not send it again; wait for its callback (docs/errors-and-retries.md).'],
    ['an abort after sending', (client) => client.manual.startDeposit({ ...CUSTOMER, amount: 250 }, { signal: AbortSignal.timeout(300) }), RequestAbortedError, 'POST /api/provider/start-manual-deposit (provider.manual.startDeposit) was aborted after it was handed to fetch. The service may have processed it: the deposit may have been created. Do not send it again; wait for its callback (docs/errors-and-retries.md).'],
  ];
  test.each(cases)('%s stays unknown for a payment, is not resent, and names its call', async (name, call, errorClass, message) => {
    noBackoff();
    const server = await startServer((request) => {
      if (name === 'a reset mid-request') request.socket.resetAndDestroy();
    });
    const client = providerFor(server, { credentialKey: PROVIDER.credentialKey, maxRetries: 3 });
    const error = await call(client).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(errorClass);
    expect(error).toMatchObject({ outcome: 'unknown', message, operation: 'provider.manual.startDeposit', request: { method: 'POST', url: `${server.url}/api/provider/start-manual-deposit` } });
    expect(server.seen).toHaveLength(1);
  });

  // Node reports a reset that comes while its TLS handshake is under way as a bare "read
  // ECONNRESET", as it reports one after sending: payorch cannot tell them apart, so it takes the
  // one that may have moved money.
  test('a reset during the TLS handshake reads as one after sending: unknown for a payment, not resent', async () => {
    noBackoff();
    const { url } = await closedInHandshake('reset');
    let tried = 0;
    const client = providerFor({ url }, { credentialKey: PROVIDER.credentialKey, maxRetries: 2, onResponse: () => { tried++; } });
    const error = await client.manual.startDeposit({ ...CUSTOMER, amount: 250 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ outcome: 'unknown', reason: 'connection_failed', refused: false, message: 'POST /api/provider/start-manual-deposit (provider.manual.startDeposit): the connection failed after the request may have left. The service may have processed it: the deposit may have been created. Do not send it again; wait for its callback (docs/errors-and-retries.md).' });
    expect(tried).toBe(1);
  });

  test('a timed-out read names its path, not its query values, in the message; request.url keeps the query', async () => {
    const server = await startServer(() => undefined);
    const dealer = new DealerClient({ baseUrl: server.url, ...DEALER, maxRetries: 0 });
    const error = await dealer.transfers.getStatus({ transfer_id: 'TRF-8fK2pQ' }, { timeout: 200 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({
      message: 'GET /api/dealer/transfer-status (dealer.transfers.getStatus) did not complete within 200 ms. The service may have processed it; receiving it twice moves no money, so it is safe to retry.',
      request: { method: 'GET', url: `${server.url}/api/dealer/transfer-status?transfer_id=TRF-8fK2pQ` },
    });
  });
});
