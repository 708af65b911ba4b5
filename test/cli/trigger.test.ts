import { describe, expect, test } from 'vitest';
import { verifyCallback } from '../../src/index.js';
import type { VerifiedCallback } from '../../src/index.js';
import { CALLBACK_STATUSES } from '../../src/callbacks/kinds.js';
import type { CallbackKind } from '../../src/callbacks/kinds.js';
import { freePort, json, startServer, closeLoopbackServers } from '../helpers/loopback.js';
import type { SeenRequest } from '../helpers/loopback.js';
import { expectNoSecret, jsonOf, payorch, expectUsageError } from './run.js';

closeLoopbackServers();

const PROVIDER = { PAYORCH_PROVIDER_API_KEY: 'prov_api_cli', PAYORCH_PROVIDER_SECRET_KEY: 'prov_secret_never_printed' };
const DEALER = { PAYORCH_DEALER_API_KEY: 'dealer_api_cli', PAYORCH_DEALER_SECRET_KEY: 'dealer_secret_never_printed' };
const ENV = { ...PROVIDER, ...DEALER };

// Spec 6.2 to 6.5: the fields each callback carries besides timestamp and hash.
const FIELDS: Record<CallbackKind, readonly string[]> = {
  deposit: ['tracking_code', 'tx_id', 'status', 'amount', 'username', 'fullname', 'user_id', 'site_id'],
  withdrawal: ['tracking_code', 'tx_id', 'status', 'amount', 'username', 'fullname', 'user_id', 'site_id', 'iban'],
  creditCard: ['tracking_code', 'order_id', 'status', 'amount', 'currency', 'username', 'user_id', 'site_id', 'customer_name', 'customer_email'],
  dealerCreditCard: ['success', 'tracking_code', 'order_id', 'status', 'amount', 'currency', 'customer_name', 'customer_email', 'customer_phone', 'status_message'],
};

const EVENTS = (Object.keys(CALLBACK_STATUSES) as CallbackKind[]).flatMap((kind) => CALLBACK_STATUSES[kind].map((status) => [kind, status] as const));

function verified(seen: SeenRequest, kind: CallbackKind): VerifiedCallback {
  const keys = kind === 'dealerCreditCard' ? { apiKey: DEALER.PAYORCH_DEALER_API_KEY, secretKey: DEALER.PAYORCH_DEALER_SECRET_KEY } : { apiKey: PROVIDER.PAYORCH_PROVIDER_API_KEY, secretKey: PROVIDER.PAYORCH_PROVIDER_SECRET_KEY };
  return verifyCallback({ headers: seen.headers, body: seen.body }, { ...keys, kind });
}

describe('payorch trigger', { timeout: 60_000 }, () => {
  test.each(EVENTS)('%s.%s: POSTs every field of its kind, signed as spec 5.3, and exits 0 on the receiver\'s 200', async (kind, status) => {
    const receiver = await startServer((_request, response) => json(response, 200, { success: true }));
    const run = await payorch(['trigger', `${kind}.${status}`, '--forward-to', `${receiver.url}/hooks?x=1`, '--amount', '312.5'], ENV);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('200 OK');
    expect(run.stdout).toContain('{"success":true}');
    expectNoSecret(run, PROVIDER.PAYORCH_PROVIDER_SECRET_KEY, DEALER.PAYORCH_DEALER_SECRET_KEY);

    const [seen] = receiver.seen;
    expect(seen?.method).toBe('POST');
    expect(seen?.url).toBe('/hooks?x=1');
    expect(seen?.headers['content-type']).toBe('application/json');
    const callback = verified(seen!, kind);
    expect(callback.kind).toBe(kind);
    const body = JSON.parse(seen!.body) as Record<string, unknown>;
    for (const field of FIELDS[kind]) expect(body).toHaveProperty(field);
    expect(body).toMatchObject({ status, amount: 312.5, timestamp: Number(seen!.headers['x-timestamp']), hash: seen!.headers['x-hash'] });
    // Card payments carry the error fields only when they failed (6.4, 6.5); a withdrawal has its IBAN (6.3).
    const card = kind === 'creditCard' || kind === 'dealerCreditCard';
    expect('error_code' in body && 'error_message' in body).toBe(card && status === 'failed');
    if (kind === 'dealerCreditCard') expect('completed_at' in body).toBe(status === 'success');
  });

  test('--tracking-code is sent as given, and --json prints the callback sent and the answer', async () => {
    const receiver = await startServer((_request, response) => json(response, 200, { success: true }));
    const run = await payorch(['trigger', 'withdrawal.rejected', '--forward-to', receiver.url, '--tracking-code', 'WIT-a8Xk29Qp-1763812000', '--json'], ENV);
    expect(run.code).toBe(0);
    const printed = jsonOf(run) as { event: string; request: { headers: Record<string, string>; body: Record<string, unknown> }; response: { status: number; body: string } };
    expect(printed.event).toBe('withdrawal.rejected');
    expect(printed.request.body).toMatchObject({ tracking_code: 'WIT-a8Xk29Qp-1763812000', status: 'rejected' });
    expect(printed.request.body).toEqual(JSON.parse(receiver.seen[0]!.body));
    expect(printed.response).toEqual({ status: 200, body: '{"success":true}' });
    expectNoSecret(run, PROVIDER.PAYORCH_PROVIDER_SECRET_KEY);
  });

  test('--api-key and --secret-key override the environment', async () => {
    const receiver = await startServer((_request, response) => json(response, 200, { success: true }));
    const run = await payorch(['trigger', 'deposit.completed', '--forward-to', receiver.url, '--api-key', 'flag_api', '--secret-key', 'flag_secret'], ENV);
    expect(run.code).toBe(0);
    expect(verifyCallback({ headers: receiver.seen[0]!.headers, body: receiver.seen[0]!.body }, { apiKey: 'flag_api', secretKey: 'flag_secret' }).kind).toBe('deposit');
    expectNoSecret(run, 'flag_secret');
  });

  test('a receiver that answers 401 fails the command with exit 1, printing its status and body', async () => {
    const receiver = await startServer((_request, response) => json(response, 401, { success: false, error: 'invalid_signature' }));
    const run = await payorch(['trigger', 'deposit.expired', '--forward-to', receiver.url], ENV);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('401 Unauthorized');
    expect(run.stdout).toContain('invalid_signature');
  });

  test('an unreachable receiver fails with exit 1 and says why', async () => {
    const run = await payorch(['trigger', 'deposit.completed', '--forward-to', `http://127.0.0.1:${await freePort()}/`], ENV);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/Could not deliver the deposit\.completed callback to http:\/\/127\.0\.0\.1:\d+\/: .*ECONNREFUSED/);
  });

  test.each([
    [['trigger', '--forward-to', 'http://127.0.0.1:1/'], {}, /name the callback to send/],
    [['trigger', 'refund.completed', '--forward-to', 'http://127.0.0.1:1/'], {}, /unknown callback kind "refund": use one of deposit, withdrawal, creditCard, dealerCreditCard/],
    [['trigger', 'deposit.success'], {}, /a deposit callback carries one of the statuses completed, canceled, expired, failed, not "success"/],
    [['trigger', 'deposit.completed'], {}, /--forward-to <url> is required/],
    [['trigger', 'deposit.completed', '--forward-to', 'ftp://x/'], {}, /--forward-to must be an http or https URL/],
    [['trigger', 'deposit.completed', '--forward-to', 'http://127.0.0.1:1/', '--amount=-5'], {}, /--amount must be a positive number: -5/],
    [['trigger', 'deposit.completed', '--forward-to', 'http://127.0.0.1:1/', '--tracking-code', 'nope'], {}, /--tracking-code is not a tracking code/],
    [['trigger', 'deposit.completed', '--forward-to', 'http://127.0.0.1:1/'], { PAYORCH_PROVIDER_API_KEY: 'k' }, /--secret-key is required \(or set PAYORCH_PROVIDER_SECRET_KEY\)/],
    [['trigger', 'dealerCreditCard.success', '--forward-to', 'http://127.0.0.1:1/'], PROVIDER, /--api-key is required \(or set PAYORCH_DEALER_API_KEY\)/],
  ])('payorch %j is bad usage: exit 2, nothing sent', async (args, env, message) => {
    await expectUsageError(args, env, message);
  });
});
