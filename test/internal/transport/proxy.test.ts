import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { ProxyAgent } from 'undici';
import { afterEach, describe, expect, test } from 'vitest';
import { ConnectionError, ProviderClient } from '../../../src/index.js';
import type { ProviderClientOptions } from '../../../src/index.js';
import { CUSTOMER, DEPOSIT, WELCOME, refusedPort, json, noBackoff, startServer, closeLoopbackServers } from '../../helpers/loopback.js';
import { PROVIDER, sha256 } from '../../helpers/wire.js';

closeLoopbackServers();

const cert = readFileSync(new URL('../../fixtures/loopback-cert.pem', import.meta.url));
const key = readFileSync(new URL('../../fixtures/loopback-key.pem', import.meta.url));

const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closing.splice(0).map((close) => close()));
});

/** A forward proxy that only tunnels (HTTP CONNECT), as fixed-IP egress proxies do. */
async function startConnectProxy(options: { refuse?: number } = {}) {
  const tunnels: string[] = [];
  const proxy = createServer((_request, response) => {
    // A plain proxied request (absolute-form URL) would mean the client did not tunnel.
    response.writeHead(405).end();
  });
  proxy.on('connect', (request, socket, head) => {
    tunnels.push(request.url ?? '');
    if (options.refuse !== undefined) {
      socket.end(`HTTP/1.1 ${options.refuse} Forbidden\r\n\r\n`);
      return;
    }
    const [host, port] = (request.url ?? '').split(':');
    const upstream = connect(Number(port), host, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  closing.push(async () => {
    proxy.closeAllConnections();
    await new Promise<void>((resolve) => proxy.close(() => { resolve(); }));
  });
  return { url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, tunnels };
}

/** The recipe of docs/runtimes-and-proxies.md: undici's ProxyAgent handed to the global fetch. */
function throughProxy(proxyUrl: string, baseUrl: string, options: Partial<ProviderClientOptions> = {}, requestTls?: { ca: Buffer }): ProviderClient {
  const dispatcher = new ProxyAgent({ uri: proxyUrl, ...(requestTls === undefined ? {} : { requestTls }) });
  closing.push(() => dispatcher.close());
  return new ProviderClient({
    baseUrl,
    ...PROVIDER,
    fetch: (input, init) => fetch(input, { ...init, dispatcher } as RequestInit),
    ...options,
  });
}

describe('calls through a CONNECT proxy', () => {
  test('an https service is reached through the tunnel, signed as usual', async () => {
    const seen: { url: string; hash: string; timestamp: string }[] = [];
    const service = createHttpsServer({ cert, key }, (request, response) => {
      request.resume();
      request.on('end', () => {
        seen.push({ url: request.url ?? '', hash: String(request.headers['x-hash']), timestamp: String(request.headers['x-timestamp']) });
        json(response, 200, WELCOME);
      });
    });
    await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
    closing.push(async () => {
      service.closeAllConnections();
      await new Promise<void>((resolve) => service.close(() => { resolve(); }));
    });
    const port = (service.address() as AddressInfo).port;
    const proxy = await startConnectProxy();

    const client = throughProxy(proxy.url, `https://127.0.0.1:${port}`, {}, { ca: cert });
    await expect(client.welcome()).resolves.toEqual(WELCOME);
    expect(proxy.tunnels).toEqual([`127.0.0.1:${port}`]);
    expect(seen).toEqual([{ url: '/api/provider/welcome', hash: sha256(PROVIDER.apiKey, PROVIDER.secretKey, seen[0]!.timestamp), timestamp: seen[0]!.timestamp }]);
  });

  test('a plain-http service is tunnelled too (undici uses CONNECT for http targets by default)', async () => {
    const service = await startServer((_request, response) => json(response, 200, DEPOSIT));
    const proxy = await startConnectProxy();
    const client = throughProxy(proxy.url, service.url, { credentialKey: PROVIDER.credentialKey });
    await expect(client.manual.startDeposit({ ...CUSTOMER, amount: 250 })).resolves.toEqual(DEPOSIT);
    expect(proxy.tunnels).toEqual([`127.0.0.1:${service.port}`]);
    expect(service.seen[0]!.body).toBe('{"fullname":"Ada Yılmaz","username":"ada","user_id":"u-1","amount":250}');
  });

  test('a proxy that refuses the tunnel fails a payment once, without a retry', async () => {
    noBackoff();
    const service = await startServer((_request, response) => json(response, 200, DEPOSIT));
    const proxy = await startConnectProxy({ refuse: 403 });
    const error = await throughProxy(proxy.url, service.url, { credentialKey: PROVIDER.credentialKey })
      .manual.startDeposit({ ...CUSTOMER, amount: 250 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).refused).toBe(false);
    expect(proxy.tunnels).toHaveLength(1);
    expect(service.seen).toHaveLength(0);
  });

  // A refusal by another address than the service's is, to the transport, what a custom fetch that
  // followed a redirect there would throw after the service read the payment.
  test('a proxy that is down refuses the connection: a payment is not resent (unknown), a read is retried', async () => {
    noBackoff();
    const service = await startServer((_request, response) => json(response, 200, DEPOSIT));
    let attempts = 0;
    const client = throughProxy(`http://127.0.0.1:${await refusedPort()}`, service.url, { credentialKey: PROVIDER.credentialKey, onRequest: () => attempts++ });
    const error = await client.manual.startDeposit({ ...CUSTOMER, amount: 250 }).catch((caught: unknown) => caught);
    expect((error as ConnectionError).outcome).toBe('unknown');
    expect(attempts).toBe(1);
    await client.welcome().catch((caught: unknown) => caught);
    expect(attempts).toBe(4);
    expect(service.seen).toHaveLength(0);
  });
});
