import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { signCallback } from '../../src/index.js';
import { json, startServer, closeLoopbackServers } from '../helpers/loopback.js';
import { expectNoSecret, jsonOf, payorch, expectUsageError } from './run.js';

closeLoopbackServers();


const apiKey = 'prov_api_cli';
const secretKey = 'prov_secret_never_printed';
const ENV = { PAYORCH_PROVIDER_API_KEY: apiKey, PAYORCH_PROVIDER_SECRET_KEY: secretKey };
const directory = mkdtempSync(join(tmpdir(), 'payorch-verify-'));

/** A deposit callback signed `ageSeconds` ago, saved to a file; its headers as --header arguments. */
function captured(ageSeconds = 2, keys = { apiKey, secretKey }) {
  const timestamp = Math.floor(Date.now() / 1000) - ageSeconds;
  const { headers, body } = signCallback({ tracking_code: 'MAN-a8Xk29Qp-1763812000', tx_id: 'TX1', status: 'completed', amount: 250, username: 'ada', fullname: 'Ada', user_id: 'u-1', site_id: 7 }, { ...keys, timestamp });
  const file = join(directory, `callback-${timestamp}-${Math.random()}.json`);
  writeFileSync(file, body);
  const args = Object.entries(headers).flatMap(([name, value]) => ['--header', `${name}: ${value}`]);
  return { file, body, args, hash: headers['X-Hash'] };
}

describe('payorch verify', { timeout: 30_000 }, () => {
  test('a genuine callback verifies: kind, status and age are printed, exit 0', async () => {
    const { file, args } = captured(2);
    const run = await payorch(['verify', ...args, '--body', file], ENV);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^verified deposit\.completed$/m);
    expect(run.stdout).toMatch(/^tracking code {2}MAN-a8Xk29Qp-1763812000$/m);
    expect(run.stdout).toMatch(/\(\d+ s ago\)/);
    expectNoSecret(run, secretKey);
  });

  test('--body - reads standard input, and --json prints the result without the hash', async () => {
    const { body, args, hash } = captured(3);
    const run = await payorch(['verify', ...args, '--body', '-', '--json'], ENV, body);
    expect(run.code).toBe(0);
    const result = jsonOf(run);
    expect(result).toMatchObject({ verified: true, kind: 'deposit', status: 'completed', trackingCode: 'MAN-a8Xk29Qp-1763812000', payload: { amount: 250, site_id: 7 } });
    expect(result['ageSeconds']).toBeGreaterThanOrEqual(3);
    expect(run.stdout).not.toContain(hash);
  });

  test('a callback signed with another secret is refused: reason, message and the 401 to answer, exit 1', async () => {
    const { file, args } = captured(1, { apiKey, secretKey: 'someone_else' });
    const run = await payorch(['verify', ...args, '--body', file, '--json'], ENV);
    expect(run.code).toBe(1);
    expect(jsonOf(run)).toMatchObject({ verified: false, reason: 'invalid_signature', status: 401 });
    expectNoSecret(run, secretKey);
  });

  test.each([
    ['an empty X-Hash', ['--header', 'X-Hash: '], 'empty_header'],
    ['X-Hash given twice', ['--header', 'X-Hash: 00', '--header', 'X-Hash: 11'], 'repeated_header'],
  ])('%s is refused as %s, as the receiver answers it', async (_name, extra, reason) => {
    const { file, args } = captured(1);
    // The signed X-Hash is the last pair of flags: replaced by the test's own.
    const run = await payorch(['verify', ...args.slice(0, -2), ...extra, '--body', file, '--json'], ENV);
    expect(run.code).toBe(1);
    expect(jsonOf(run)).toMatchObject({ verified: false, reason, status: 401 });
  });

  test('a refusal in text names the reason and the status to answer', async () => {
    const { file, args } = captured(1);
    const run = await payorch(['verify', ...args, '--body', file], { ...ENV, PAYORCH_PROVIDER_API_KEY: 'another_api_key' });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^refused api_key_mismatch$/m);
    expect(run.stdout).toMatch(/^Answer HTTP 401/m);
  });

  test('a redelivery that kept a two-day-old signature verifies; --max-age tightens the window', async () => {
    const { file, args } = captured(2 * 86_400);
    const accepted = await payorch(['verify', ...args, '--body', file, '--json'], ENV);
    expect(accepted.code).toBe(0);
    expect(jsonOf(accepted)['ageSeconds']).toBeGreaterThanOrEqual(2 * 86_400);
    const refused = await payorch(['verify', ...args, '--body', file, '--json', '--max-age', '3600'], ENV);
    expect(refused.code).toBe(1);
    expect(jsonOf(refused)).toMatchObject({ verified: false, reason: 'timestamp_out_of_tolerance', status: 401 });
  });

  test('a dealer card callback without headers verifies only with --kind dealerCreditCard or --dealer-card-without-headers, with the dealer keys', async () => {
    const dealer = { PAYORCH_DEALER_API_KEY: 'dealer_api_cli', PAYORCH_DEALER_SECRET_KEY: 'dealer_secret_never_printed' };
    const { body } = signCallback(
      { success: true, tracking_code: 'CC-a8Xk29Qp-1763812000', order_id: 'ORD-1', status: 'success', amount: 250, currency: 'TRY', customer_phone: '+905551112233', status_message: 'Payment completed' },
      { apiKey: dealer.PAYORCH_DEALER_API_KEY, secretKey: dealer.PAYORCH_DEALER_SECRET_KEY },
    );
    // Read with the provider's keys (the same values here): refused, whatever its hash.
    const refused = await payorch(['verify', '--body', '-', '--json'], { ...dealer, PAYORCH_PROVIDER_API_KEY: dealer.PAYORCH_DEALER_API_KEY, PAYORCH_PROVIDER_SECRET_KEY: dealer.PAYORCH_DEALER_SECRET_KEY }, body);
    expect(jsonOf(refused)).toMatchObject({ verified: false, reason: 'missing_header', status: 401 });
    for (const flags of [['--dealer-card-without-headers'], ['--kind', 'dealerCreditCard']]) {
      const accepted = await payorch(['verify', '--body', '-', '--json', ...flags], dealer, body);
      expect(accepted.code).toBe(0);
      expect(jsonOf(accepted)).toMatchObject({ verified: true, kind: 'dealerCreditCard', status: 'success' });
      expectNoSecret(accepted, dealer.PAYORCH_DEALER_SECRET_KEY);
    }
  });

  test.each([
    ['deposit.completed', {}],
    ['dealerCreditCard.success', { PAYORCH_DEALER_API_KEY: 'dealer_api_cli', PAYORCH_DEALER_SECRET_KEY: 'dealer_secret_never_printed' }],
  ])('what payorch trigger --json printed for %s verifies as it is, from a file or standard input', async (event, dealer) => {
    const receiver = await startServer((_request, response) => json(response, 200, { success: true }));
    const env = { ...ENV, ...dealer };
    const sent = await payorch(['trigger', event, '--forward-to', receiver.url, '--json'], env);
    expect(sent.code).toBe(0);
    const file = join(directory, `trigger-${event}.json`);
    writeFileSync(file, sent.stdout);
    const fromFile = await payorch(['verify', '--body', file, '--json'], env);
    expect(fromFile.code).toBe(0);
    expect(jsonOf(fromFile)).toMatchObject({ verified: true, status: event.split('.')[1] });
    const fromStdin = await payorch(['verify', '--body', '-'], env, sent.stdout);
    expect(fromStdin.stdout).toMatch(new RegExp(`^verified ${event.replace('.', '\\.')}$`, 'm'));
    // A --header given as well wins over the captured one.
    const overridden = await payorch(['verify', '--body', file, '--json', '--header', 'X-Hash: 00'], env);
    expect(jsonOf(overridden)).toMatchObject({ verified: false, reason: 'invalid_signature' });
  });

  test('a refusal names the CLI flag, not the SDK option', async () => {
    const { body } = signCallback({ success: true, tracking_code: 'CC-a8Xk29Qp-1763812000', order_id: 'ORD-1', status: 'success', amount: 250, currency: 'TRY', customer_phone: '+905551112233', status_message: 'Payment completed' }, { apiKey: 'dealer_api_cli', secretKey: 'dealer_secret_never_printed' });
    const run = await payorch(['verify', '--body', '-'], { PAYORCH_PROVIDER_API_KEY: 'dealer_api_cli', PAYORCH_PROVIDER_SECRET_KEY: 'dealer_secret_never_printed' }, body);
    expect(run.stdout).toContain('--dealer-card-without-headers');
    expect(run.stdout).not.toContain('dealerCardWithoutHeaders');
  });

  test('a body that is not JSON is refused with 400', async () => {
    const run = await payorch(['verify', '--header', 'X-Hash: 00', '--body', '-', '--json'], ENV, 'not json');
    expect(run.code).toBe(1);
    expect(jsonOf(run)).toMatchObject({ verified: false, reason: 'malformed_body', status: 400 });
  });

  test.each([
    [['verify'], /--body <file\|-> is required/],
    [['verify', '--body', '-', '--header', 'no colon'], /--header takes 'Name: value': no colon/],
    [['verify', '--body', '-', '--kind', 'refund'], /--kind must be one of deposit, withdrawal, creditCard, dealerCreditCard: refund/],
    [['verify', '--body', '/nonexistent/callback.json'], /cannot read \/nonexistent\/callback\.json/],
  ])('payorch %j is bad usage: exit 2', async (args, message) => {
    await expectUsageError(args, ENV, message);
  });
});
