import { describe, expect, test } from 'vitest';
import { APIError, ConnectionError, PayorchError, ProviderClient, RequestValidationError } from '../../../src/index.js';
import { CUSTOMER, DEPOSIT, WELCOME, refusedPort, json, noBackoff, providerFor, startServer, closeLoopbackServers } from '../../helpers/loopback.js';
import { PROVIDER } from '../../helpers/wire.js';

closeLoopbackServers();

const client = (baseUrl: string, allowInsecureHttp?: boolean) => () =>
  new ProviderClient({ baseUrl, ...PROVIDER, ...(allowInsecureHttp === undefined ? {} : { allowInsecureHttp }) });

describe('the https rule', () => {
  test.each(['https://pay.example.com', 'https://pay.example.com/base/', 'http://localhost:8080', 'http://127.0.0.1:3000', 'http://127.1.2.3', 'http://[::1]:9000'])(
    'accepts %s',
    (baseUrl) => {
      expect(client(baseUrl)).not.toThrow();
    },
  );

  test.each(['http://pay.example.com', 'http://10.0.0.5:8080', 'http://localhost.evil.example', 'http://127.0.0.1.nip.io'])(
    'refuses plain http to %s, whose traffic could be changed on the way',
    (baseUrl) => {
      expect(client(baseUrl)).toThrow(PayorchError);
      expect(client(baseUrl)).toThrow(/must use https unless the host is loopback or allowInsecureHttp is set/);
    },
  );

  test('allowInsecureHttp: true lets plain http reach a host that is not loopback', () => {
    expect(client('http://10.0.0.5:8080', true)).not.toThrow();
  });

  test.each([
    ['ftp://pay.example.com', /must use https/],
    ['not a url', /must be an absolute https URL/],
    ['https://pay.example.com/?x=1', /query or fragment/],
    ['https://user:hunter2@pay.example.com', /user name or password/],
  ])('refuses %s', (baseUrl, message) => {
    expect(client(baseUrl)).toThrow(message);
  });

  test('a refused baseUrl with a password does not show it', () => {
    expect(client('http://user:hunter2@pay.example.com')).toThrow(/^(?!.*hunter2)/s);
  });
});

describe('redirects', () => {
  test('a redirect to another host is not followed, and the payment is not sent there', async () => {
    const elsewhere = await startServer((_request, response) => { json(response, 200, WELCOME); });
    const server = await startServer((_request, response) => {
      response.writeHead(307, { location: `${elsewhere.url.replace('127.0.0.1', 'localhost')}/api/provider/start-manual-deposit` });
      response.end();
    });
    const error = await providerFor(server, { credentialKey: PROVIDER.credentialKey })
      .manual.startDeposit({ ...CUSTOMER, amount: 250 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(307);
    expect((error as APIError).headers.location).toContain('/api/provider/start-manual-deposit');
    expect(server.seen).toHaveLength(1);
    expect(elsewhere.seen).toHaveLength(0);
  });

  test('a redirect of a read-only call is not followed either, nor retried', async () => {
    const server = await startServer((_request, response) => {
      response.writeHead(301, { location: '/api/provider/welcome-v2' });
      response.end();
    });
    const error = await providerFor(server).welcome().catch((caught: unknown) => caught);
    expect((error as APIError).status).toBe(301);
    expect(server.seen).toHaveLength(1);
  });
});

describe('a custom fetch that follows redirects', () => {
  test('an answer that came through a redirect is refused, outcome unknown: the body may have gone there', async () => {
    const elsewhere = await startServer((_request, response) => { json(response, 200, DEPOSIT); });
    const server = await startServer((_request, response) => {
      response.writeHead(307, { location: `${elsewhere.url}/api/provider/start-manual-deposit` });
      response.end();
    });
    // Rebuilt from the URL, as some wrappers do: redirect: 'manual' is lost, so fetch follows.
    const rebuilding: typeof fetch = async (input, init) => {
      const request = input instanceof Request ? input : new Request(input, init);
      return fetch(request.url, { method: request.method, headers: request.headers, body: await request.text(), signal: init?.signal ?? null });
    };
    const error = await providerFor(server, { credentialKey: PROVIDER.credentialKey, fetch: rebuilding })
      .manual.startDeposit({ ...CUSTOMER, amount: 250 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).message).toMatch(/came through a redirect, which payorch never follows/);
    expect((error as APIError).outcome).toBe('unknown');
  });
});

describe('a custom fetch that follows redirects whatever it is told', () => {
  /** Follows every redirect itself, with the body, as a hand-written fetch wrapper might. */
  const following = (seen: RequestInit[]): typeof fetch => async (input, init) => {
    seen.push({ ...init });
    const request = input as Request;
    const body = await request.text();
    let url = request.url;
    for (let hop = 0; hop < 5; hop++) {
      const response = await fetch(url, { method: request.method, headers: request.headers, body, redirect: 'manual', signal: init?.signal ?? null });
      const location = response.headers.get('location');
      if (response.status < 300 || response.status > 399 || location === null) return response;
      url = new URL(location, url).href;
    }
    throw new TypeError('too many redirects');
  };

  test.each([
    ['refuses the connection', async () => `http://127.0.0.1:${await refusedPort()}`],
    ['does not resolve', () => Promise.resolve('http://payorch-test.invalid')],
  ])('a payment redirected to a host that %s was read by the service: unknown, sent once', async (_name, target) => {
    noBackoff();
    const elsewhere = await target();
    const server = await startServer((_request, response) => {
      response.writeHead(307, { location: `${elsewhere}/api/provider/start-manual-withdrawal` });
      response.end();
    });
    const given: RequestInit[] = [];
    const error = await providerFor(server, { credentialKey: PROVIDER.credentialKey, maxRetries: 5, fetch: following(given) })
      .manual.startWithdrawal({ ...CUSTOMER, amount: 100, iban: 'TR330006100519786457841326' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).outcome).toBe('unknown');
    expect((error as ConnectionError).message).toMatch(/the withdrawal may have been created\. Do not send it again/);
    expect(server.seen).toHaveLength(1);
    // What fetch was told, for one that honours it.
    expect(given.map((init) => init.redirect)).toEqual(['manual']);
  });

  test('a refused connection that names the service itself is still not_sent, and resent', async () => {
    noBackoff();
    const port = await refusedPort();
    let attempts = 0;
    const error = await providerFor({ url: `http://127.0.0.1:${port}` }, { credentialKey: PROVIDER.credentialKey, maxRetries: 2, fetch: following([]), onRequest: () => attempts++ })
      .manual.startDeposit({ ...CUSTOMER, amount: 250 })
      .catch((caught: unknown) => caught);
    expect((error as ConnectionError).refused).toBe(true);
    expect((error as ConnectionError).outcome).toBe('not_sent');
    expect(attempts).toBe(3);
  });
});

describe('the answer size cap', () => {
  test('an answer over maxResponseBytes is refused with an APIError that names the cap', async () => {
    const big = JSON.stringify({ ...WELCOME, padding: 'x'.repeat(2_000) });
    const server = await startServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' }); // chunked: no length to check up front
      response.end(big);
    });
    const error = await providerFor(server, { maxResponseBytes: 1_000 }).welcome().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).message).toMatch(/larger than maxResponseBytes \(1000 bytes\)/);
    expect((error as APIError).status).toBe(200);
    expect(server.seen).toHaveLength(1);
  });

  test('an answer at the cap is accepted', async () => {
    const body = JSON.stringify(WELCOME);
    const server = await startServer((_request, response) => { json(response, 200, WELCOME); });
    await expect(providerFor(server, { maxResponseBytes: Buffer.byteLength(body) }).welcome()).resolves.toEqual(WELCOME);
  });
});

describe('header values', () => {
  test('a credential key that cannot travel in a header is refused before sending', async () => {
    const server = await startServer((_request, response) => { json(response, 200, WELCOME); });
    const error = await providerFor(server)
      .manual.startDeposit({ ...CUSTOMER, amount: 250 }, { credentialKey: 'site-key\r\nX-Injected: 1' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues).toEqual([
      { field: 'X-Credential-Key', rule: 'header_value', message: 'must be printable Latin-1 text without line breaks or surrounding spaces to travel in an HTTP header' },
    ]);
    expect((error as Error).message).not.toContain('site-key');
    expect(server.seen).toHaveLength(0);
  });
});
