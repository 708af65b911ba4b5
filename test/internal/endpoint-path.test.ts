import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { http } from 'msw';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { APIError, DealerClient } from '../../src/index.js';
import type { RequestOptions } from '../../src/index.js';
import { endpointPath } from '../../src/internal/call.js';
import { APIResource, CallTables } from '../../src/internal/resource.js';
import { manualIbanWithdrawEndpoint } from '../../src/dealer/manual-iban.js';
import type * as DealerRows from '../../src/tools/registry/dealer.js';
import { API_ENDPOINTS } from '../../src/tools/registry/index.js';
import { openApiDocument } from '../../src/tools/openapi/document.js';
import { SANDBOX_BASE_URL, createSandbox } from '../../src/tools/sandbox/index.js';
import type { RunningSandbox } from '../../src/tools/sandbox/index.js';
import { memoryTracing } from '../helpers/tracing.js';
import { server } from '../mocks/server.js';

/*
 * An endpoint the service would serve outside its API's prefix (spec 4.1 puts every path under
 * /api/<api>), given its whole path: defined here only, under a name no real endpoint will take, added to the registry's dealer rows for
 * this file, and sent, served and documented with no change to the transport, the sandbox or the
 * OpenAPI generator.
 */
vi.mock('../../src/tools/registry/dealer.js', async (importOriginal) => {
  const original = await importOriginal<typeof DealerRows>();
  const z = await import('zod/mini');
  const { defineEndpoint } = await import('../../src/internal/endpoint.js');
  const { lenientObject, successFlag } = await import('../../src/internal/schema-blocks.js');
  const { NoParams } = await import('../../src/internal/shared-shapes.js');
  const { dealer } = await import('../../src/tools/registry/row.js');
  const { success } = await import('../../src/tools/sandbox/answers.js');
  const testOnlyEndpoint = defineEndpoint({
    operation: 'testOnly.get',
    method: 'GET',
    fullPath: '/dealer/v0/test-only',
    hash: 'basic',
    resendable: true,
    params: NoParams,
    response: lenientObject(() => ({ success: successFlag(), daily_limit: z.number() })),
  });
  const testOnlyRow = dealer(testOnlyEndpoint, { answer: { success: true, daily_limit: 50_000 }, handle: () => success({ success: true, daily_limit: 50_000 }) });
  return { ...original, DEALER_ENDPOINTS: [...original.DEALER_ENDPOINTS, testOnlyRow] };
});

const testOnly = API_ENDPOINTS.find((row) => row.endpoint.operation === 'testOnly.get');
if (testOnly === undefined) throw new Error('the test row is not in the registry');
const testOnlyEndpoint = testOnly.endpoint;

// The dealer's tables (src/dealer/calls.ts) lack the test's row: a table of its own holds it.
const TEST_ONLY_CALLS = new CallTables(() => Promise.resolve({ testOnlyEndpoint }));

/** What a maintainer writes for a new call: a resource method sending the row's endpoint. */
class TestOnly extends APIResource {
  get(options?: RequestOptions) {
    return this._send(TEST_ONLY_CALLS, (calls) => calls.testOnlyEndpoint, undefined, options);
  }
}

class DealerWithTestOnly extends DealerClient {
  readonly testOnly = new TestOnly(this._transport);
}

// The loopback tests need real sockets: msw listens only in the test of its handlers.
const tracing = memoryTracing();

let running: RunningSandbox | undefined;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await running?.close();
  running = undefined;
  for (const close of closers.splice(0)) await close();
});

/** A loopback server that answers `status` with `body` and records each request's method and target. */
async function recorder(status: number, body: unknown): Promise<{ url: string; seen: string[] }> {
  const seen: string[] = [];
  const listener = createServer((request, response) => {
    seen.push(`${request.method ?? ''} ${request.url ?? ''}`);
    response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise<void>((resolve) => listener.close(() => { resolve(); })));
  return { url: `http://127.0.0.1:${(listener.address() as AddressInfo).port}`, seen };
}

const keys = { apiKey: 'dealer-api-key', secretKey: 'dealer-secret-key' };

describe('endpointPath', () => {
  test('puts a path under its API prefix (spec 4.1), and takes a fullPath whole', () => {
    expect(endpointPath({ api: 'dealer', endpoint: manualIbanWithdrawEndpoint })).toBe('/api/dealer/manual-iban/withdraw');
    expect(endpointPath(testOnly)).toBe('/dealer/v0/test-only');
  });

  test('gives every row of the registry its own path, one the sandbox can route', () => {
    const routes = API_ENDPOINTS.map((row) => `${row.endpoint.method} ${endpointPath(row)}`);
    // A fullPath could land on another row's path: the sandbox would then serve only one of them.
    expect(new Set(routes).size).toBe(routes.length);
    for (const route of routes) expect(route).toMatch(/^(GET|POST) (\/[a-z0-9-]+)+$/);
  });
});

describe('an endpoint with a whole path', () => {
  test('is sent to that path on the wire, below a proxy prefix of the base URL, while raw requests stay under the API', async () => {
    const wire = await recorder(200, { success: true, daily_limit: 7 });
    const dealer = new DealerWithTestOnly({ baseUrl: `${wire.url}/proxy`, ...keys, maxRetries: 0 });
    await expect(dealer.testOnly.get()).resolves.toEqual({ success: true, daily_limit: 7 });
    await dealer.request({ method: 'GET', path: '/settings' });
    expect(wire.seen).toEqual(['GET /proxy/dealer/v0/test-only', 'GET /proxy/api/dealer/settings']);
  });

  test('names that path in error messages, log lines and spans', async () => {
    const wire = await recorder(500, { success: false, message: 'down' });
    const lines: string[] = [];
    const log = (_fields: unknown, message: string) => { lines.push(message); };
    const { tracer, spans } = tracing;
    const dealer = new DealerWithTestOnly({ baseUrl: wire.url, ...keys, maxRetries: 0, tracer, logLevel: 'debug', logger: { debug: log, info: log, warn: log, error: log } });
    const error = await dealer.testOnly.get().then(() => undefined, (failure: unknown) => failure);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).message).toContain('(HTTP 500, GET /dealer/v0/test-only)');
    expect((error as APIError).request.url).toBe(`${wire.url}/dealer/v0/test-only`);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toContain('GET /dealer/v0/test-only (dealer.testOnly.get)');
    expect(spans().at(-1)?.attributes['url.full']).toBe(`${wire.url}/dealer/v0/test-only`);
  });

  test('is routed by the sandbox on a socket and through msw, and only at that path', async () => {
    const sandbox = createSandbox();
    running = await sandbox.listen({ port: 0 });
    const overSocket = new DealerWithTestOnly({ baseUrl: running.url, ...sandbox.accounts.dealer, maxRetries: 0 });
    await expect(overSocket.testOnly.get()).resolves.toEqual({ success: true, daily_limit: 50_000 });
    const prefixed = await overSocket.request({ method: 'GET', path: '/dealer/v0/test-only' }).then(() => undefined, (failure: unknown) => failure);
    expect((prefixed as APIError).status).toBe(404);

    server.listen({ onUnhandledFrame: 'error' });
    try {
      server.use(...sandbox.mswHandlers(http));
      const throughMsw = new DealerWithTestOnly({ baseUrl: SANDBOX_BASE_URL, ...sandbox.accounts.dealer, maxRetries: 0 });
      await expect(throughMsw.testOnly.get()).resolves.toEqual({ success: true, daily_limit: 50_000 });
    } finally {
      server.resetHandlers();
      server.close();
    }
  });

  test('is in the OpenAPI document at that path', () => {
    const document = openApiDocument({ version: '0.0.0' }) as { paths: Record<string, Record<string, { operationId?: string }>> };
    expect(document.paths['/dealer/v0/test-only']?.['get']?.operationId).toBe('dealer.testOnly.get');
    expect(Object.keys(document.paths).filter((path) => path.includes('test-only'))).toEqual(['/dealer/v0/test-only']);
  });
});
