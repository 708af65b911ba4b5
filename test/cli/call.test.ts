import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { DealerClient, ProviderClient } from '../../src/index.js';
import { API_ENDPOINTS, endpointPath } from '../../src/tools/registry/index.js';
import { WELCOME, refusedPort, closeLoopbackServers, json, startServer } from '../helpers/loopback.js';
import { expectNoSecret, jsonOf, useListeningSandbox, payorch, expectUsageError } from './run.js';

closeLoopbackServers();

const sandbox = useListeningSandbox();
const secrets = () => [sandbox.env['PAYORCH_PROVIDER_SECRET_KEY'] ?? '', sandbox.env['PAYORCH_DEALER_SECRET_KEY'] ?? ''];
const deposit = { fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1', amount: 250 };

describe('payorch call', { timeout: 30_000 }, () => {
  test('the help lists every operation of the endpoint table, and each names a method of its client', async () => {
    const run = await payorch(['call', '--help']);
    const clients = { provider: new ProviderClient({ baseUrl: 'https://pay.example.com', apiKey: 'a', secretKey: 'b' }), dealer: new DealerClient({ baseUrl: 'https://pay.example.com', apiKey: 'a', secretKey: 'b' }) };
    for (const { api, endpoint } of API_ENDPOINTS) {
      expect(run.stdout).toMatch(new RegExp(`^  ${api}\\.${endpoint.operation.replaceAll('.', '\\.')} +${endpoint.method} +${endpointPath({ api, endpoint })}$`, 'm'));
      const method: unknown = endpoint.operation.split('.').reduce<unknown>((target, name) => (target as Record<string, unknown>)[name], clients[api]);
      expect(typeof method, endpoint.operation).toBe('function');
    }
  });

  test('welcome prints the answer alone on stdout, the status line on stderr, and exits 0', async () => {
    const run = await payorch(['call', 'welcome'], sandbox.env);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('ok POST /api/provider/welcome\n');
    expect(jsonOf(run)).toMatchObject({ success: true, provider: { name: 'Sandbox Provider' } });
    expectNoSecret(run, ...secrets());
  });

  test('an answer that echoes the secret key, the credential key and the hash is printed as sent, each redacted', async () => {
    const keys = { PAYORCH_PROVIDER_API_KEY: 'echo_api_key', PAYORCH_PROVIDER_SECRET_KEY: 'echoed_secret_key_value', PAYORCH_CREDENTIAL_KEY: 'echoed_credential_key' };
    const server = await startServer((request, response) => {
      json(response, 200, { ...WELCOME, message: `hash ${String(request.headers['x-hash'])}, secret ${keys.PAYORCH_PROVIDER_SECRET_KEY}, site ${keys.PAYORCH_CREDENTIAL_KEY}` });
    });
    const run = await payorch(['call', 'welcome'], { PAYORCH_BASE_URL: server.url, ...keys });
    expect(run.code).toBe(0);
    expect(jsonOf(run)).toEqual({ ...WELCOME, message: 'hash [redacted], secret [redacted], site [redacted]' });
    expectNoSecret(run, keys.PAYORCH_PROVIDER_SECRET_KEY, keys.PAYORCH_CREDENTIAL_KEY, ...server.seen.map((seen) => String(seen.headers['x-hash'])));
  });

  test('--data JSON is the operation\'s parameters; --json prints the answer alone', async () => {
    const run = await payorch(['call', 'manual.startDeposit', '--data', JSON.stringify(deposit), '--json'], sandbox.env);
    expect(run.code).toBe(0);
    expect(jsonOf(run)).toMatchObject({ success: true, data: { tracking_code: expect.stringMatching(/^MAN-/) as unknown, amount: 250, status: 'showing' } });
  });

  test('--data @file and @- read the parameters from a file and from standard input', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'payorch-call-')), 'withdraw.json');
    writeFileSync(file, JSON.stringify({ ...deposit, iban: 'TR330006100519786457841326' }));
    const fromFile = await payorch(['call', 'provider.manual.startWithdrawal', '--data', `@${file}`, '--json'], sandbox.env);
    expect(jsonOf(fromFile)).toMatchObject({ data: { tracking_code: expect.stringMatching(/^WIT-/) as unknown, status: 'pending' } });
    const fromStdin = await payorch(['call', 'eiban.startDeposit', '--data', '@-', '--json'], sandbox.env, JSON.stringify(deposit));
    expect(jsonOf(fromStdin)).toMatchObject({ data: { tracking_code: expect.stringMatching(/^EIBAN-/) as unknown } });
  });

  test('sites.list takes its X-Key from PAYORCH_SITES_KEY; dealer operations use the dealer keys', async () => {
    const sites = await payorch(['call', 'sites.list', '--json'], sandbox.env);
    expect(jsonOf(sites)).toMatchObject({ success: true, total_sites: 2 });
    const settings = await payorch(['call', 'settings.get', '--json'], sandbox.env);
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
    expect(run.stderr).toMatch(/^AuthenticationError Invalid hash/m);
    expect(run.stderr).toMatch(/^status {3}401$/m);
    expect(run.stderr).toMatch(/^reason {3}invalid_hash$/m);
    expectNoSecret(run, 'wrong_secret_value');
    const asJson = await payorch(['call', 'welcome', '--json'], env);
    expect(jsonOf(asJson)).toMatchObject({ error: { class: 'AuthenticationError', status: 401, reason: 'invalid_hash' } });
  });

  test('a dealer error code of spec 7.4 is printed', async () => {
    const run = await payorch(['call', 'transactions.list', '--data', JSON.stringify({ wallet_id: 'WLT-NOT-OURS', start_date: '2026-11-01', end_date: '2026-11-02' })], sandbox.env);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^code {5}WALLET_NOT_ASSIGNED$/m);
  });

  test.each([
    [['call'], /name the operation/],
    [['call', 'refund'], /^payorch call: unknown operation "refund" \(payorch call --help lists them\)\nSee payorch call --help\.\n$/],
    [['call', 'manual.startdeposit'], /unknown operation "manual\.startdeposit"; did you mean manual\.startDeposit\?/],
    [['call', 'Welcome'], /unknown operation "Welcome"; did you mean welcome\?/],
    [['call', 'transactions.iterat'], /did you mean transactions\.iterate\?/],
    [['call', 'manual.startDeposit', '--dat', '{}'], /^payorch call: unknown option --dat; did you mean --data\?/],
    [['call', 'creditCard.createPayment'], /creditCard\.createPayment is an operation of both APIs: write provider\.creditCard\.createPayment or dealer\.creditCard\.createPayment/],
    [['call', 'welcome', '--data', '{}'], /provider\.welcome takes no parameters: leave out --data/],
    [['call', 'manual.startDeposit', '--data', '{oops'], /--data is not JSON/],
  ])('payorch %j is bad usage: exit 2', async (args, message) => {
    await expectUsageError(args, sandbox.env, message);
  });

  test.each(API_ENDPOINTS)('$api.endpoint.operation --help lists the fields of its request schema, with its method and path', async ({ api, endpoint }) => {
    const run = await payorch(['call', `${api}.${endpoint.operation}`, '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^Usage: payorch call ${api}\\.${endpoint.operation.replaceAll('.', '\\.')}`));
    expect(run.stdout).toContain(`${endpoint.method} ${endpointPath({ api, endpoint })}`);
    const { properties = {} } = z.toJSONSchema(endpoint.params, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, unknown> };
    for (const field of Object.keys(properties)) expect(run.stdout).toMatch(new RegExp(`^  ${field} +\\S`, 'm'));
  });

  test('an operation\'s help gives each field its type, whether it is required, and its limits', async () => {
    const deposit = await payorch(['call', 'manual.startDeposit', '--help']);
    expect(deposit.stdout).toMatch(/^ {2}fullname +string, required, not blank$/m);
    expect(deposit.stdout).toMatch(/^ {2}amount +number, required, at least 1$/m);
    const send = await payorch(['call', 'transfers.send', '--help']);
    expect(send.stdout).toMatch(/^ {2}recipient_iban +string, required, 15 to 34 characters$/m);
    expect(send.stdout).toMatch(/^ {2}description +string, optional$/m);
    const list = await payorch(['call', 'transactions.list', '--help']);
    expect(list.stdout).toMatch(/^ {2}start_date +date \(YYYY-MM-DD\), required$/m);
    expect(list.stdout).toMatch(/^ {2}page +integer, optional, at least 1$/m);
    expect(list.stdout).toContain('payorch call transactions.iterate reads any range');
    expect((await payorch(['call', 'welcome', '--help'])).stdout).toContain('It takes no parameters');
  });

  test('missing fields are each "is required", once; without --data every required field is named', async () => {
    const run = await payorch(['call', 'manual.startDeposit', '--data', JSON.stringify({ fullname: 'Ada', username: 'ada', amount: 250 })], sandbox.env);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('RequestValidationError Invalid request to manual.startDeposit: nothing was sent\noutcome  not_sent\n  user_id: is required\n');
    const bare = await payorch(['call', 'manual.startDeposit', '--json'], sandbox.env);
    expect(jsonOf(bare)).toMatchObject({ error: { class: 'RequestValidationError', message: 'Invalid request to manual.startDeposit: fullname: is required; username: is required; user_id: is required; amount: is required' } });
    expect(bare.stdout).not.toContain('received undefined');
  });

  test('an operation that needs a site credential key names the flag and the variable, not the SDK option', async () => {
    const env = Object.fromEntries(Object.entries(sandbox.env).filter(([name]) => name !== 'PAYORCH_CREDENTIAL_KEY'));
    const run = await payorch(['call', 'manual.startDeposit', '--data', JSON.stringify(deposit)], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('RequestValidationError Invalid request to manual.startDeposit: nothing was sent\noutcome  not_sent\n  --credential-key: is required for this operation (or set PAYORCH_CREDENTIAL_KEY)\n');
  });

  test('transactions.iterate prints every record of a range longer than one request takes, as DealerClient reads them', async () => {
    const { eibans } = jsonOf(await payorch(['call', 'eibans.list', '--json'], sandbox.env)) as { eibans: { wallet_id: string }[] };
    const today = new Date().toISOString().slice(0, 10);
    const range = { wallet_id: eibans[0]?.wallet_id ?? '', start_date: new Date(Date.now() - 20 * 86_400_000).toISOString().slice(0, 10), end_date: today };
    const { PAYORCH_DEALER_API_KEY: apiKey = '', PAYORCH_DEALER_SECRET_KEY: secretKey = '' } = sandbox.env;
    const expected = await new DealerClient({ baseUrl: sandbox.url, apiKey, secretKey }).transactions.iterate(range).toArray();
    expect(expected.length).toBeGreaterThan(0);
    const asJson = await payorch(['call', 'transactions.iterate', '--data', JSON.stringify(range), '--json'], sandbox.env);
    expect(asJson.code).toBe(0);
    expect(JSON.parse(asJson.stdout)).toEqual(JSON.parse(JSON.stringify(expected)));
    const asText = await payorch(['call', 'dealer.transactions.iterate', '--data', JSON.stringify(range)], sandbox.env);
    // One JSON line per record on stdout, as jq -c reads them; the status and the count on stderr.
    const lines = asText.stdout.trim().split('\n');
    expect(lines.map((line) => JSON.parse(line) as unknown)).toEqual(JSON.parse(JSON.stringify(expected)));
    expect(asText.stderr).toBe(`ok GET /api/dealer/transactions, every page\n${expected.length} records\n`);
  });

  test('a range too long for transactions.list points at transactions.iterate', async () => {
    const run = await payorch(['call', 'transactions.list', '--data', JSON.stringify({ wallet_id: 'WLT-1', start_date: '2026-11-01', end_date: '2026-11-20' })], sandbox.env);
    expect(run.stderr).toContain('end_date: must be at most 3 days after start_date (the service\'s limit); payorch call transactions.iterate reads any range');
    expect(run.stderr).not.toContain('iterate()');
  });

  test('an unreachable service: ConnectionError, exit 1', async () => {
    const run = await payorch(['call', 'welcome', '--json', '--base-url', `http://127.0.0.1:${await refusedPort()}`], sandbox.env);
    expect(run.code).toBe(1);
    expect(jsonOf(run)).toMatchObject({ error: { class: 'ConnectionError' } });
  });

  test('a base URL the client refuses is bad usage; --allow-insecure-http lets a plain-http one through', async () => {
    await expectUsageError(['call', 'welcome', '--base-url', 'http://pay.example.invalid'], sandbox.env, /--base-url: must use https unless the host is loopback or --allow-insecure-http is set/);
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
