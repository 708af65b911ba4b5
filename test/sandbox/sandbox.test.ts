import { http, passthrough } from 'msw';
import { describe, expect, test } from 'vitest';
import { DealerClient, ProviderClient, RequestValidationError } from '../../src/index.js';
import { API_ENDPOINTS, endpointPath } from '../../src/tools/registry/index.js';
import { createSandbox } from '../../src/tools/sandbox/index.js';
import type { Sandbox } from '../../src/tools/sandbox/index.js';
import { IBAN, SANDBOX_BASE_URL, customer, handSigned, providerOf, read } from '../helpers/sandbox.js';
import { DEALER_CALLS, PROVIDER_CALLS, withValues } from '../helpers/api-calls.js';
import { server, useMsw } from '../mocks/server.js';

useMsw();

describe('sandbox.fetch', () => {
  test('is a fetch: a client takes it as its `fetch` option, with any base URL', async () => {
    const sandbox = createSandbox();
    const { apiKey, secretKey } = sandbox.accounts.provider;
    const client = new ProviderClient({ baseUrl: 'https://pay.example.com', apiKey, secretKey, fetch: sandbox.fetch });
    expect((await client.welcome()).provider.name).toBe('Sandbox Provider');
  });

  test('takes a URL and init as well as a Request', async () => {
    const sandbox = createSandbox();
    const request = handSigned(`${SANDBOX_BASE_URL}/api/provider/welcome`, sandbox.accounts.provider);
    const answer = await sandbox.fetch(request.url, { method: 'POST', headers: request.headers });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });

  test('an unknown path is 404', async () => {
    const sandbox = createSandbox();
    expect(await read(await sandbox.fetch(`${SANDBOX_BASE_URL}/api/provider/start-bitcoin-deposit`, { method: 'POST' }))).toEqual({
      status: 404,
      body: { success: false, error: 'Not Found', message: 'No endpoint at POST /api/provider/start-bitcoin-deposit' },
    });
  });

  test('a known path with another method is 405 with Allow', async () => {
    const sandbox = createSandbox();
    const answer = await sandbox.fetch(`${SANDBOX_BASE_URL}/api/dealer/transactions`, { method: 'POST' });
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('GET');
    expect(await answer.json()).toEqual({ success: false, error: 'Method Not Allowed', message: '/api/dealer/transactions takes GET' });
  });

  test('serves every endpoint of the registry', async () => {
    const sandbox = createSandbox();
    const paths = API_ENDPOINTS.map((row) => `${row.endpoint.method} ${endpointPath(row)}`);
    for (const entry of paths) {
      const [method = '', path = ''] = entry.split(' ');
      // Unsigned: every endpoint exists and asks for the headers, none is 404 or 405.
      expect(await read(await sandbox.fetch(`${SANDBOX_BASE_URL}${path}`, { method })), entry).toMatchObject({ status: 401, body: { error: 'Missing required headers' } });
    }
  });
});

describe('records', () => {
  test('200 concurrent requests make 200 records: none lost, none twice', async () => {
    const sandbox = createSandbox();
    const provider = providerOf(sandbox);
    const answers = await Promise.all(Array.from({ length: 200 }, (_, index) => provider.manual.startDeposit({ ...customer, user_id: `u-${index}`, amount: 10 + index })));
    const codes = answers.map((answer) => answer.data.tracking_code);
    expect(new Set(codes).size).toBe(200);
    const records = sandbox.records();
    expect(records).toHaveLength(200);
    expect(new Set(records.map((record) => record.id))).toEqual(new Set(codes));
    // Each record is the one its request made.
    for (const answer of answers) expect(sandbox.record(answer.data.tracking_code)?.amount).toBe(answer.data.amount);
  });

  test('records() are snapshots: changing one changes nothing in the sandbox', async () => {
    const sandbox = createSandbox();
    const { data } = await providerOf(sandbox).manual.startDeposit({ ...customer, amount: 10 });
    const [snapshot] = sandbox.records();
    (snapshot?.params as Record<string, unknown>)['amount'] = 99;
    expect(sandbox.record(data.tracking_code)?.params['amount']).toBe(10);
  });

  test('an unknown id has no record', () => {
    expect(createSandbox().record('MAN-none')).toBeUndefined();
  });
});

describe('createSandbox', () => {
  test('refuses callbackURL, not an option, naming callbackUrls among its options, rather than post no callback', () => {
    let caught: unknown;
    try {
      createSandbox({ callbackURL: 'http://127.0.0.1:3000/webhooks/payorch' } as Parameters<typeof createSandbox>[0]);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(RequestValidationError);
    expect((caught as RequestValidationError).issues).toEqual([
      {
        field: 'callbackURL',
        rule: 'invalid_option',
        message:
          'is not an option of createSandbox (misspelt, or removed?); its options are provider, dealer, callbackRetry, lifetimeSeconds, transferCompletionSeconds, maxRecords, maxDeliveries, history, publicUrl, startTime, seed, gateways, callbackUrls',
      },
    ]);
  });
});

describe('the same sandbox three ways', () => {
  type Clients = { provider: ProviderClient; dealer: DealerClient; key: string };
  // One call to each endpoint of the registry with its example, after the calls that make the ids some of them read.
  const script = async ({ provider, dealer, key }: Clients) => {
    const walletId = (await dealer.eibans.list()).eibans[0]?.wallet_id ?? '';
    const card = await provider.creditCard.createPayment({ username: 'ada', user_id: 'u-1', firstname: 'Ada', lastname: 'Yılmaz', amount: 150 });
    const sent = await dealer.transfers.send({ wallet_id: walletId, recipient_iban: IBAN, recipient_name: 'Ada Yılmaz', amount: 25 });
    const values = { key, wallet_id: walletId, tracking_code: card.data.tracking_code, transfer_id: sent.transfer.transfer_id, start_date: '2026-01-13', end_date: '2026-01-15' };
    const out: unknown[] = [];
    for (const call of PROVIDER_CALLS) out.push(await call.invoke(provider, withValues(call.valid, values) as never));
    for (const call of DEALER_CALLS) out.push(await call.invoke(dealer, withValues(call.valid, values) as never));
    return out;
  };
  const fresh = () => createSandbox({ startTime: Date.UTC(2026, 0, 15, 9, 0, 0) });
  const clients = (sandbox: Sandbox, baseUrl: string, fetch?: typeof globalThis.fetch): Clients => {
    const { apiKey, secretKey, sites, key } = sandbox.accounts.provider;
    return {
      key,
      provider: new ProviderClient({ baseUrl, apiKey, secretKey, credentialKey: sites[0].credentialKey, maxRetries: 0, fetch }),
      dealer: new DealerClient({ baseUrl, ...sandbox.accounts.dealer, maxRetries: 0, fetch }),
    };
  };
  /** The answers with the base URL taken out of payment URLs, which is all that may differ. */
  const normal = (answers: unknown[], baseUrl: string) => JSON.parse(JSON.stringify(answers).replaceAll(baseUrl, '<base>')) as unknown;

  // Three sandboxes, each answering every endpoint: the budget grows with the registry.
  test('every client call answers the same through sandbox.fetch, msw and HTTP', { timeout: 30_000 }, async () => {
    const inProcess = fresh();
    const viaFetch = await script(clients(inProcess, SANDBOX_BASE_URL, inProcess.fetch));

    const mocked = fresh();
    server.use(...mocked.mswHandlers(http, { baseUrl: 'https://msw.payorch.test' }));
    const viaMsw = await script(clients(mocked, 'https://msw.payorch.test'));

    // This file's msw refuses what it has no handler for; the sandbox's own server is real.
    server.use(http.all(/^http:\/\/127\.0\.0\.1:\d+\//, () => passthrough()));
    const served = fresh();
    const running = await served.listen();
    try {
      const viaHttp = await script(clients(served, running.url));
      expect(viaFetch).toHaveLength(API_ENDPOINTS.length);
      expect(normal(viaMsw, 'https://msw.payorch.test')).toEqual(normal(viaFetch, SANDBOX_BASE_URL));
      expect(normal(viaHttp, running.url)).toEqual(normal(viaFetch, SANDBOX_BASE_URL));
    } finally {
      await running.close();
    }
  });
});
