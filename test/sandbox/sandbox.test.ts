import { describe, expect, test } from 'vitest';
import { ProviderClient } from '../../src/index.js';
import { createSandbox } from '../../src/sandbox/index.js';
import { SANDBOX_BASE_URL, customer, handSigned, providerOf, read } from '../helpers/sandbox.js';

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

  test('serves all 17 provider and 8 dealer endpoints', async () => {
    const sandbox = createSandbox();
    const paths = [
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
    expect(paths).toHaveLength(25);
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
