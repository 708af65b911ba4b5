import { describe, expect, test } from 'vitest';
import { createCallbackReceiver, verifyCallback } from '../../src/index.js';
import type { VerifiedCallback } from '../../src/index.js';
import { CALLBACK_STATUSES } from '../../src/webhooks/kinds.js';
import { callbackFields } from '../../src/tools/sandbox/callback-payloads.js';
import { settableFields } from '../../src/tools/cli/trigger-fields.js';
import type { CallbackKind } from '../../src/webhooks/kinds.js';
import { refusedPort, json, startServer, closeLoopbackServers } from '../helpers/loopback.js';
import type { SeenRequest } from '../helpers/loopback.js';
import { providerOf } from '../helpers/sandbox.js';
import { serveRefundOnce } from '../helpers/serve.js';
import { expectNoSecret, jsonOf, listeningSandbox, payorch, expectUsageError } from './run.js';

closeLoopbackServers();

const PROVIDER = { PAYORCH_PROVIDER_API_KEY: 'prov_api_cli', PAYORCH_PROVIDER_SECRET_KEY: 'prov_secret_never_printed' };
const DEALER = { PAYORCH_DEALER_API_KEY: 'dealer_api_cli', PAYORCH_DEALER_SECRET_KEY: 'dealer_secret_never_printed' };
const ENV = { ...PROVIDER, ...DEALER };

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
    // The fields of its kind's table (spec 6.2 to 6.5) at that status, each once, and no other:
    // card error fields only when failed (6.4, 6.5), a dealer card's completed_at only on success.
    expect(Object.keys(body).sort()).toEqual(callbackFields(kind, status).sort());
    expect(body).toMatchObject({ status, amount: 312.5, timestamp: Number(seen!.headers['x-timestamp']), hash: seen!.headers['x-hash'] });
    const card = kind === 'creditCard' || kind === 'dealerCreditCard';
    expect('error_code' in body && 'error_message' in body).toBe(card && status === 'failed');
  });

  test('--also sends two end statuses of one withdrawal at the same moment to a real receiver: both in flight together, one record, refunded once', async () => {
    const served = await serveRefundOnce(createCallbackReceiver({ apiKey: PROVIDER.PAYORCH_PROVIDER_API_KEY, secretKey: PROVIDER.PAYORCH_PROVIDER_SECRET_KEY }));
    try {
      const run = await payorch(['trigger', 'withdrawal.rejected', '--also', 'failed', '--forward-to', served.url, '--json'], ENV);
      expect(run.code).toBe(0);
      const printed = JSON.parse(run.stdout) as { event: string; request: { body: Record<string, unknown> }; response: { status: number } }[];
      expect(printed.map(({ event, response }) => [event, response.status])).toEqual([['withdrawal.rejected', 200], ['withdrawal.failed', 200]]);
      const [rejected, failed] = printed.map(({ request }) => request.body);
      // One record: the same fields, each signed with its own status.
      expect({ ...failed, status: 'rejected', hash: undefined, timestamp: undefined }).toEqual({ ...rejected, hash: undefined, timestamp: undefined });
      expect(served.seen.map((each) => each.status).sort()).toEqual(['failed', 'rejected']);
      expect(new Set(served.seen.map((each) => each.trackingCode)).size).toBe(1);
      // Both were in flight at once; the inbox applied them one at a time, the second seeing the first.
      expect(served.mostInFlight()).toBe(2);
      expect(served.refunds()).toBe(1);
      expect(served.seen.map((each) => each.appliedStatuses)).toEqual([[], [served.seen[0]?.status]]);
      expectNoSecret(run, PROVIDER.PAYORCH_PROVIDER_SECRET_KEY);
    } finally {
      await served.close();
    }
  });

  test.each([
    [['--also', 'rejected'], /--also names a status sent already: rejected, rejected/],
    [['--also', 'paid'], /a withdrawal callback carries one of the statuses completed, rejected, failed, canceled, not "paid"/],
  ])('withdrawal.rejected %j is bad usage: exit 2, nothing sent', async (extra, message) => {
    await expectUsageError(['trigger', 'withdrawal.rejected', '--forward-to', 'http://127.0.0.1:1/', ...extra], ENV, message);
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
    const run = await payorch(['trigger', 'deposit.completed', '--forward-to', `http://127.0.0.1:${await refusedPort()}/`], ENV);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/Could not deliver the deposit\.completed callback to http:\/\/127\.0\.0\.1:\d+\/: .*ECONNREFUSED/);
  });

  test('--set user_id, amount and site_id reach a receiver that confirms against its own order, which answers 200; without them it answers 409', async () => {
    const order = { tracking_code: 'MAN-a8Xk29Qp-1763812000', user_id: 'u-42', amount: 312.5, site_id: 3 };
    // A receiver as the webhooks guide writes one: it applies a callback only when it matches the order it made.
    const receiver = await startServer((_request, response, _n, seen) => {
      const callback = verified(seen, 'deposit');
      const payload = callback.kind === 'deposit' ? callback.payload : undefined;
      const matches = payload?.tracking_code === order.tracking_code && payload.user_id === order.user_id && payload.amount === order.amount && payload.site_id === order.site_id;
      json(response, matches ? 200 : 409, { success: matches });
    });
    const args = ['trigger', 'deposit.completed', '--forward-to', receiver.url, '--tracking-code', order.tracking_code];
    const unset = await payorch(args, ENV);
    expect(unset.code).toBe(1);
    expect(unset.stdout).toContain('409 Conflict');

    const set = await payorch([...args, '--set', 'user_id=u-42', '--set', 'amount=312.50', '--set', 'site_id=3', '--set', 'fullname=Grace Hopper'], ENV);
    expect(set.stderr).toBe('');
    expect(set.code).toBe(0);
    expect(set.stdout).toContain('200 OK');
    // Typed as spec 6.2 types them: amount a number, site_id an integer, the others text.
    expect(JSON.parse(receiver.seen[1]!.body)).toMatchObject({ user_id: 'u-42', amount: 312.5, site_id: 3, fullname: 'Grace Hopper', username: 'ada' });
  });

  test.each([
    ['dealerCreditCard.failed', ['success=true', 'customer_phone=+905550000000', 'error_code=LIMIT'], { success: true, customer_phone: '+905550000000', error_code: 'LIMIT' }],
    ['withdrawal.completed', ['iban=TR000000000000000000000001', 'tx_id=12345', 'amount=0.5'], { iban: 'TR000000000000000000000001', tx_id: '12345', amount: 0.5 }],
    ['creditCard.success', ['customer_email=grace@example.com', 'currency=TRY', 'site_id=-2'], { customer_email: 'grace@example.com', currency: 'TRY', site_id: -2 }],
  ] as const)('%s with --set %j sends those values, typed, in a body that verifies', async (event, sets, expected) => {
    const receiver = await startServer((_request, response) => json(response, 200, { success: true }));
    const [kind] = event.split('.') as [CallbackKind];
    const run = await payorch(['trigger', event, '--forward-to', receiver.url, ...sets.flatMap((entry) => ['--set', entry])], ENV);
    expect(run.code).toBe(0);
    expect(verified(receiver.seen[0]!, kind).payload).toMatchObject(expected);
  });

  test('--from-record with --sandbox-url sends the amount, site and customer of that sandbox record, as the sandbox would', async () => {
    const sandbox = await listeningSandbox();
    try {
      const { data } = await providerOf(sandbox.sandbox).manual.startWithdrawal({ fullname: 'Grace Hopper', username: 'grace', user_id: 'u-77', iban: 'TR330006100519786457841326', amount: 640 });
      const receiver = await startServer((_request, response) => json(response, 200, { success: true }));
      const { provider } = sandbox.sandbox.accounts;
      const env = { PAYORCH_PROVIDER_API_KEY: provider.apiKey, PAYORCH_PROVIDER_SECRET_KEY: provider.secretKey };
      const run = await payorch(['trigger', 'withdrawal.rejected', '--forward-to', receiver.url, '--sandbox-url', sandbox.url, '--from-record', data.tracking_code, '--set', 'amount=600'], env);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const payload = verifyCallback({ headers: receiver.seen[0]!.headers, body: receiver.seen[0]!.body }, { apiKey: provider.apiKey, secretKey: provider.secretKey, kind: 'withdrawal' }).payload;
      // --set wins over the record; the record does not move (settling it is the sandbox's job).
      expect(payload).toMatchObject({ tracking_code: data.tracking_code, status: 'rejected', amount: 600, user_id: 'u-77', username: 'grace', fullname: 'Grace Hopper', iban: 'TR330006100519786457841326', site_id: provider.sites[0].id });
      expect(sandbox.sandbox.record(data.tracking_code)?.status).toBe('pending');

      const missing = await payorch(['trigger', 'withdrawal.completed', '--forward-to', receiver.url, '--sandbox-url', sandbox.url, '--from-record', 'WIT-nothere1-1763812000'], env);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toMatch(/has no record WIT-nothere1-1763812000 \(--from-record\)/);
      expect(receiver.seen).toHaveLength(1);
    } finally {
      await sandbox.close();
    }
  });

  test('--from-record without --sandbox-url sends your own tracking code, once its prefix fits the event', async () => {
    const receiver = await startServer((_request, response) => json(response, 200, { success: true }));
    const run = await payorch(['trigger', 'creditCard.success', '--forward-to', receiver.url, '--from-record', 'CC-a8Xk29Qp-1763812000', '--set', 'user_id=u-9'], ENV);
    expect(run.code).toBe(0);
    expect(verified(receiver.seen[0]!, 'creditCard').payload).toMatchObject({ tracking_code: 'CC-a8Xk29Qp-1763812000', user_id: 'u-9' });
  });

  const ALLOWED = settableFields('deposit').join(', ');
  test.each([
    [['--set', 'tracking_code=MAN-a8Xk29Qp-1763812000'], `--set tracking_code: the hash covers tracking_code, so trigger signs it itself (use --tracking-code or --from-record); a deposit callback lets --set change ${ALLOWED}`],
    [['--set', 'status=completed'], '--set status: the hash covers status'],
    [['--set', 'timestamp=1763812000'], '--set timestamp: the hash covers timestamp'],
    [['--set', 'hash=abc'], `--set hash: the hash is computed from the secret key and the signed fields, so trigger computes it itself; a deposit callback lets --set change ${ALLOWED}`],
    [['--set', 'iban=TR330006100519786457841326'], `--set iban: a deposit callback has no field "iban" (spec 6); --set may change ${ALLOWED}`],
    [['--set', 'user_id'], '--set takes field=value, for example --set user_id=u-42: "user_id"'],
    [['--set', 'site_id=three'], '--set site_id=three: site_id is a whole number'],
    [['--set', 'site_id=1.5'], '--set site_id=1.5: site_id is a whole number'],
    [['--set', 'amount=lots'], '--set amount=lots: amount is a positive number'],
    [['--set', 'amount=0'], '--set amount=0: amount is a positive number'],
    [['--set', 'user_id=a', '--set', 'user_id=b'], '--set user_id: set twice'],
    [['--amount', '5', '--set', 'amount=6'], '--amount and --set amount=… say the same thing'],
    [['--from-record', 'WIT-a8Xk29Qp-1763812000'], '--from-record WIT-a8Xk29Qp-1763812000: a WIT code names a manualWithdrawal record (spec 2.1), which does not send a deposit callback'],
    [['--from-record', 'nope'], '--from-record is not a tracking code of spec 2.1'],
    [['--from-record', 'MAN-a8Xk29Qp-1763812000', '--tracking-code', 'MAN-a8Xk29Qp-1763812000'], '--from-record names the tracking code already'],
    [['--sandbox-url', 'http://127.0.0.1:1'], '--sandbox-url says where --from-record reads the record'],
  ])('deposit.completed %j is refused, naming the flag and the field: exit 2, nothing sent', async (extra, message) => {
    const run = await payorch(['trigger', 'deposit.completed', '--forward-to', 'http://127.0.0.1:1/', ...extra], ENV);
    expect(run.stderr).toContain(message);
    expect(run.stdout).toBe('');
    expect(run.code).toBe(2);
  });

  test.each([
    ['success=yes', 'dealerCreditCard.success', '--set success=yes: success is true or false'],
    ['username=ada', 'dealerCreditCard.success', `--set username: a dealerCreditCard callback has no field "username" (spec 6); --set may change ${settableFields('dealerCreditCard').join(', ')}`],
  ])('--set %s on %s is refused with the fields that kind allows', async (entry, event, message) => {
    await expectUsageError(['trigger', event, '--forward-to', 'http://127.0.0.1:1/', '--set', entry], ENV, new RegExp(message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
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
