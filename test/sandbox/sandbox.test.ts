import { http, passthrough } from 'msw';
import { describe, expect, test } from 'vitest';
import { DealerClient, ProviderClient } from '../../src/index.js';
import { API_ENDPOINTS, fullPath } from '../../src/endpoint-table.js';
import { createSandbox } from '../../src/tools/sandbox/index.js';
import type { Sandbox } from '../../src/tools/sandbox/index.js';
import { IBAN, SANDBOX_BASE_URL, customer, handSigned, providerOf, read } from '../helpers/sandbox.js';
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

  // The one list of the spec's endpoints (sections 4.2 and 4.13) in the tests; the rest read the endpoint table.
  test('serves every endpoint of the endpoint table, which lists those of spec 4.2 and 4.13', async () => {
    const sandbox = createSandbox();
    const spec = [
      'POST /api/provider/welcome',
      'POST /api/provider/sites',
      'POST /api/provider/start-manual-deposit',
      'POST /api/provider/start-manual-withdraw',
      'POST /api/provider/start-eiban-deposit',
      'POST /api/provider/start-eiban-withdraw',
      'POST /api/provider/credit-card/payment',
      'POST /api/provider/credit-card/status',
      ...['bank', 'crypto', 'wallet'].flatMap((channel) => ['start-deposit', 'gateways', 'start-withdrawal'].map((name) => `POST /api/provider/third-party/${channel}/${name}`)),
      'GET /api/dealer/settings',
      'POST /api/dealer/manual-iban/deposit',
      'POST /api/dealer/manual-iban/withdraw',
      'GET /api/dealer/eibans',
      'GET /api/dealer/transactions',
      'POST /api/dealer/send-money',
      'GET /api/dealer/transfer-status',
      'POST /api/dealer/credit-card/payment',
    ];
    const paths = API_ENDPOINTS.map((row) => `${row.endpoint.method} ${fullPath(row)}`);
    expect(paths).toEqual(spec);
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

describe('the same sandbox three ways', () => {
  type Clients = { provider: ProviderClient; dealer: DealerClient; key: string };
  // One call to each endpoint, in an order where each may use what one before made.
  const script = async ({ provider, dealer, key }: Clients) => {
    const out: unknown[] = [];
    out.push(await provider.welcome(), await provider.sites.list({ key }));
    out.push(await provider.manual.startDeposit({ ...customer, amount: 250 }));
    out.push(await provider.manual.startWithdrawal({ ...customer, iban: IBAN, amount: 100 }));
    out.push(await provider.eiban.startDeposit({ ...customer, amount: 250 }));
    out.push(await provider.eiban.startWithdrawal({ ...customer, iban: IBAN, amount: 100 }));
    const card = await provider.creditCard.createPayment({ username: 'ada', user_id: 'u-1', firstname: 'Ada', lastname: 'Yılmaz', amount: 150 });
    out.push(card, await provider.creditCard.getStatus({ tracking_code: card.data.tracking_code }));
    for (const channel of ['bank', 'crypto', 'wallet'] as const) {
      out.push(await provider.thirdParty[channel].gateways.list(), await provider.thirdParty[channel].startDeposit({ ...customer, amount: 300 }));
    }
    out.push(await provider.thirdParty.bank.startWithdrawal({ ...customer, amount: 300, gateway_id: 1, iban: IBAN, account_holder: 'Ada Yılmaz' }));
    out.push(await provider.thirdParty.crypto.startWithdrawal({ ...customer, amount: 300, gateway_id: 11, crypto_type: 'BTC', wallet_address: 'bc1q' }));
    out.push(await provider.thirdParty.wallet.startWithdrawal({ ...customer, amount: 300, gateway_id: 21, wallet_number: '5551234' }));
    out.push(await dealer.settings.get());
    const eibans = await dealer.eibans.list();
    const walletId = eibans.eibans[0]?.wallet_id ?? '';
    out.push(eibans, await dealer.transactions.list({ wallet_id: walletId, start_date: '2026-01-13', end_date: '2026-01-15', page: 2 }));
    out.push(await dealer.manualIban.startDeposit({ username: 'ada', userid: 'u-1', fullname: 'Ada Yılmaz', amount: 500 }));
    out.push(await dealer.manualIban.startWithdrawal({ username: 'ada', userid: 'u-1', amount: 500, recipient_name: 'Ada Yılmaz', recipient_iban: IBAN }));
    const sent = await dealer.transfers.send({ wallet_id: walletId, recipient_iban: IBAN, recipient_name: 'Ada Yılmaz', amount: 25 });
    out.push(sent, await dealer.transfers.getStatus({ transfer_id: sent.transfer.transfer_id }));
    out.push(await dealer.creditCard.createPayment({ username: 'ada', firstname: 'Ada', lastname: 'Yılmaz', email: 'ada@example.test', phone: '+905550000000', amount: 200 }));
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

  test('every client call answers the same through sandbox.fetch, msw and HTTP', async () => {
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
