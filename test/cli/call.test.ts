import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { DealerClient, ProviderClient } from '../../src/index.js';
import { API_ENDPOINTS } from '../../src/endpoints.js';
import { freePort, useRealNetwork } from '../helpers/loopback.js';
import { expectNoSecret, jsonOf, useListeningSandbox, payorch, expectUsageError } from './run.js';

useRealNetwork();

const sandbox = useListeningSandbox();
const secrets = () => [sandbox.env['PAYORCH_PROVIDER_SECRET_KEY'] ?? '', sandbox.env['PAYORCH_DEALER_SECRET_KEY'] ?? ''];
const deposit = { fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1', amount: 250 };

describe('payorch call', { timeout: 30_000 }, () => {
  test('the help lists every operation of the endpoint table, and each names a method of its client', async () => {
    const run = await payorch(['call', '--help']);
    expect(API_ENDPOINTS).toHaveLength(25);
    const clients = { provider: new ProviderClient({ baseUrl: 'https://pay.example.com', apiKey: 'a', secretKey: 'b' }), dealer: new DealerClient({ baseUrl: 'https://pay.example.com', apiKey: 'a', secretKey: 'b' }) };
    for (const { api, endpoint } of API_ENDPOINTS) {
      expect(run.stdout).toMatch(new RegExp(`^  ${api}\\.${endpoint.operation.replaceAll('.', '\\.')} +${endpoint.method} +/api/${api}${endpoint.path}$`, 'm'));
      const method: unknown = endpoint.operation.split('.').reduce<unknown>((target, name) => (target as Record<string, unknown>)[name], clients[api]);
      expect(typeof method, endpoint.operation).toBe('function');
    }
  });

  test('welcome prints the answer and exits 0', async () => {
    const run = await payorch(['call', 'welcome'], sandbox.env);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^ok POST \/api\/provider\/welcome\n/);
    expect(run.stdout).toContain('"name": "Sandbox Provider"');
    expectNoSecret(run, ...secrets());
  });

  test('--data JSON is the operation\'s parameters; --json prints the answer alone', async () => {
    const run = await payorch(['call', 'manual.startDeposit', '--data', JSON.stringify(deposit), '--json'], sandbox.env);
    expect(run.code).toBe(0);
    expect(jsonOf(run)).toMatchObject({ success: true, data: { tracking_code: expect.stringMatching(/^MAN-/) as unknown, amount: 250, status: 'showing' } });
  });

  test('--data @file and @- read the parameters from a file and from standard input', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'payorch-call-')), 'withdraw.json');
    writeFileSync(file, JSON.stringify({ ...deposit, iban: 'TR330006100519786457841326' }));
    const fromFile = await payorch(['call', 'provider.manual.startWithdraw', '--data', `@${file}`, '--json'], sandbox.env);
    expect(jsonOf(fromFile)).toMatchObject({ data: { tracking_code: expect.stringMatching(/^WIT-/) as unknown, status: 'pending' } });
    const fromStdin = await payorch(['call', 'eiban.startDeposit', '--data', '@-', '--json'], sandbox.env, JSON.stringify(deposit));
    expect(jsonOf(fromStdin)).toMatchObject({ data: { tracking_code: expect.stringMatching(/^EIBAN-/) as unknown } });
  });

  test('listSites takes its X-Key from PAYORCH_SITES_KEY; dealer operations use the dealer keys', async () => {
    const sites = await payorch(['call', 'listSites', '--json'], sandbox.env);
    expect(jsonOf(sites)).toMatchObject({ success: true, total_sites: 2 });
    const settings = await payorch(['call', 'getSettings', '--json'], sandbox.env);
    expect(jsonOf(settings)).toMatchObject({ success: true, dealer_name: 'Sandbox Dealer' });
    const card = await payorch(['call', 'dealer.creditCard.createPayment', '--data', JSON.stringify({ username: 'ada', firstname: 'Ada', lastname: 'Y', email: 'ada@example.com', phone: '+905551112233', amount: 200 }), '--json'], sandbox.env);
    expect(jsonOf(card)).toMatchObject({ data: { tracking_code: expect.stringMatching(/^CC-/) as unknown, currency: 'TRY' } });
  });

  test('parameters the SDK refuses: RequestValidationError with the fields at fault, exit 1, nothing sent', async () => {
    const run = await payorch(['call', 'manual.startDeposit', '--data', JSON.stringify({ ...deposit, amount: 0 }), '--json'], sandbox.env);
    expect(run.code).toBe(1);
    expect(jsonOf(run)).toMatchObject({ error: { class: 'RequestValidationError', fields: [{ field: 'amount', rule: 'too_small' }] } });
  });

  test('a refused signature: the class, the status and the reason of spec 7.1, exit 1, the secret not printed', async () => {
    const env = { ...sandbox.env, PAYORCH_PROVIDER_SECRET_KEY: 'wrong_secret_value' };
    const run = await payorch(['call', 'welcome'], env);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^AuthenticationError Invalid hash/m);
    expect(run.stdout).toMatch(/^status {3}401$/m);
    expect(run.stdout).toMatch(/^reason {3}invalid_hash$/m);
    expectNoSecret(run, 'wrong_secret_value');
    const asJson = await payorch(['call', 'welcome', '--json'], env);
    expect(jsonOf(asJson)).toMatchObject({ error: { class: 'AuthenticationError', status: 401, reason: 'invalid_hash' } });
  });

  test('a dealer error code of spec 7.4 is printed', async () => {
    const run = await payorch(['call', 'transactions.list', '--data', JSON.stringify({ wallet_id: 'WLT-NOT-OURS', start_date: '2026-11-01', end_date: '2026-11-02' })], sandbox.env);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^code {5}WALLET_NOT_ASSIGNED$/m);
  });

  test.each([
    [['call'], /name the operation/],
    [['call', 'refund'], /unknown operation "refund"/],
    [['call', 'creditCard.createPayment'], /creditCard\.createPayment is an operation of both APIs: write provider\.creditCard\.createPayment or dealer\.creditCard\.createPayment/],
    [['call', 'welcome', '--data', '{}'], /provider\.welcome takes no parameters: leave out --data/],
    [['call', 'manual.startDeposit', '--data', '{oops'], /--data is not JSON/],
  ])('payorch %j is bad usage: exit 2', async (args, message) => {
    await expectUsageError(args, sandbox.env, message);
  });

  test('an unreachable service: ConnectionError, exit 1', async () => {
    const run = await payorch(['call', 'welcome', '--json', '--base-url', `http://127.0.0.1:${await freePort()}`], sandbox.env);
    expect(run.code).toBe(1);
    expect(jsonOf(run)).toMatchObject({ error: { class: 'ConnectionError' } });
  });

  test('a base URL the client refuses is bad usage; --allow-insecure-http lets a plain-http one through', async () => {
    await expectUsageError(['call', 'welcome', '--base-url', 'http://pay.example.invalid'], sandbox.env, /--base-url must use https unless the host is loopback or --allow-insecure-http is set/);
    const run = await payorch(['call', 'welcome', '--json', '--base-url', 'http://pay.example.invalid', '--allow-insecure-http', '--timeout', '5000'], sandbox.env);
    expect(run.code).toBe(1);
    // Sent, and failed on the way (.invalid never resolves; a machine without DNS may time out instead).
    expect(jsonOf(run)).toMatchObject({ error: { class: expect.stringMatching(/^(ConnectionError|TimeoutError)$/) as unknown } });
  });

  test('without a base URL, the flag and the variable are named', async () => {
    const run = await payorch(['call', 'welcome'], { PAYORCH_PROVIDER_API_KEY: 'a', PAYORCH_PROVIDER_SECRET_KEY: 'b' });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--base-url is required (or set PAYORCH_BASE_URL)');
  });
});
