import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { verifyCallback } from '../../src/index.js';
import { SandboxError, createSandbox } from '../../src/tools/sandbox/index.js';
import type { Sandbox, SandboxOptions } from '../../src/tools/sandbox/index.js';
import { IBAN, customer, dealerOf, providerOf, startReceiver } from '../helpers/sandbox.js';
import type { TestReceiver } from '../helpers/sandbox.js';
import { sha256 } from '../helpers/wire.js';
import { CALLBACK_FIELDS } from '../../src/webhooks/payload.js';

const START = Date.UTC(2026, 0, 15, 9, 0, 0);
const card = { username: 'ada', user_id: 'u-1', firstname: 'Ada', lastname: 'Yılmaz', email: 'ada@example.test', amount: 150 };
const dealerCard = { username: 'ada', firstname: 'Ada', lastname: 'Yılmaz', email: 'ada@example.test', phone: '+905550000000', amount: 250 };

type Create = (sandbox: Sandbox) => Promise<string>;

/** Each kind of record, how to make one, and the end statuses section 3 and 6 allow it (spec, not the code). */
const KINDS: readonly { kind: string; create: Create; from: string; ends: readonly string[] }[] = [
  { kind: 'manual deposit', from: 'showing', ends: ['completed', 'canceled', 'expired'], create: async (s) => (await providerOf(s).manual.startDeposit({ ...customer, amount: 100 })).data.tracking_code },
  { kind: 'E-IBAN deposit', from: 'showing', ends: ['completed', 'canceled', 'expired'], create: async (s) => (await providerOf(s).eiban.startDeposit({ ...customer, amount: 100 })).data.tracking_code },
  {
    kind: 'bank deposit',
    from: 'showing',
    ends: ['completed', 'canceled', 'expired', 'failed'],
    create: async (s) => (await providerOf(s).thirdParty.bank.startDeposit({ ...customer, amount: 100 })).data.tracking_code,
  },
  {
    kind: 'crypto deposit',
    from: 'showing',
    ends: ['completed', 'canceled', 'expired', 'failed'],
    create: async (s) => (await providerOf(s).thirdParty.crypto.startDeposit({ ...customer, amount: 100 })).data.tracking_code,
  },
  {
    kind: 'wallet deposit',
    from: 'showing',
    ends: ['completed', 'canceled', 'expired', 'failed'],
    create: async (s) => (await providerOf(s).thirdParty.wallet.startDeposit({ ...customer, amount: 100 })).data.tracking_code,
  },
  {
    kind: 'manual withdrawal',
    from: 'pending',
    ends: ['completed', 'rejected', 'failed', 'canceled'],
    create: async (s) => (await providerOf(s).manual.startWithdrawal({ ...customer, iban: IBAN, amount: 100 })).data.tracking_code,
  },
  {
    kind: 'E-IBAN withdrawal',
    from: 'pending',
    ends: ['completed', 'rejected', 'failed', 'canceled'],
    create: async (s) => (await providerOf(s).eiban.startWithdrawal({ ...customer, iban: IBAN, amount: 100 })).data.tracking_code,
  },
  {
    kind: 'bank withdrawal',
    from: 'showing',
    ends: ['completed', 'rejected', 'failed', 'canceled'],
    create: async (s) => (await providerOf(s).thirdParty.bank.startWithdrawal({ ...customer, amount: 100, gateway_id: 1, iban: IBAN, account_holder: 'Ada Yılmaz' })).data.tracking_code,
  },
  {
    kind: 'crypto withdrawal',
    from: 'showing',
    ends: ['completed', 'rejected', 'failed', 'canceled'],
    create: async (s) => (await providerOf(s).thirdParty.crypto.startWithdrawal({ ...customer, amount: 100, gateway_id: 11, crypto_type: 'BTC', wallet_address: 'bc1q' })).data.tracking_code,
  },
  {
    kind: 'wallet withdrawal',
    from: 'showing',
    ends: ['completed', 'rejected', 'failed', 'canceled'],
    create: async (s) => (await providerOf(s).thirdParty.wallet.startWithdrawal({ ...customer, amount: 100, gateway_id: 21, wallet_number: '5551234' })).data.tracking_code,
  },
  { kind: 'provider card payment', from: 'pending', ends: ['success', 'failed', 'cancelled'], create: async (s) => (await providerOf(s).creditCard.createPayment(card)).data.tracking_code },
  { kind: 'dealer card payment', from: 'pending', ends: ['success', 'failed'], create: async (s) => (await dealerOf(s).creditCard.createPayment(dealerCard)).data.tracking_code },
  {
    kind: 'transfer',
    from: 'pending',
    ends: ['completed', 'failed', 'cancelled'],
    create: async (s) => {
      const walletId = (await dealerOf(s).eibans.list()).eibans[0]?.wallet_id ?? '';
      return (await dealerOf(s).transfers.send({ wallet_id: walletId, recipient_iban: IBAN, recipient_name: 'Ada', amount: 50 })).transfer.transfer_id;
    },
  },
  {
    kind: 'dealer manual deposit',
    from: 'pending',
    ends: [],
    create: async (s) => (await dealerOf(s).manualIban.startDeposit({ username: 'ada', userid: 'u-1', fullname: 'Ada', amount: 100 })).data.tracking_code,
  },
  {
    kind: 'dealer manual withdrawal',
    from: 'pending',
    ends: [],
    create: async (s) => (await dealerOf(s).manualIban.startWithdrawal({ username: 'ada', userid: 'u-1', amount: 100, recipient_name: 'Ada', recipient_iban: IBAN })).data.tracking_code,
  },
];

const STATUSES = ['pending', 'showing', 'completed', 'canceled', 'cancelled', 'expired', 'rejected', 'failed', 'success', 'refunded'];

const refusal = async (promise: Promise<unknown>) => {
  const error = await promise.catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(SandboxError);
  return error as SandboxError;
};

describe('settle(): the moves of section 3', () => {
  for (const { kind, create, from, ends } of KINDS) {
    for (const status of STATUSES) {
      const allowed = ends.includes(status);
      test(`a ${kind} ${allowed ? 'moves' : 'does not move'} from ${from} to ${status}`, async () => {
        const sandbox = createSandbox();
        const id = await create(sandbox);
        expect(sandbox.record(id)?.status).toBe(from);
        if (allowed) {
          const { record } = await sandbox.settle(id, status);
          expect(record).toMatchObject({ id, status });
          expect(sandbox.record(id)?.status).toBe(status);
        } else {
          const error = await refusal(sandbox.settle(id, status));
          expect(error.code).toBe('refused_move');
          expect(sandbox.record(id)?.status).toBe(from);
        }
      });
    }
  }

  test('an end status is final', async () => {
    const sandbox = createSandbox();
    const id = await providerOf(sandbox).manual.startDeposit({ ...customer, amount: 100 }).then((answer) => answer.data.tracking_code);
    await sandbox.settle(id, 'canceled');
    const error = await refusal(sandbox.settle(id, 'completed'));
    expect(error.message).toBe(`${id} (manualDeposit) is canceled: section 3 lets it move to no other status, not to completed`);
  });

  test('a successful card payment may be refunded, and only that', async () => {
    const sandbox = createSandbox();
    const id = (await providerOf(sandbox).creditCard.createPayment(card)).data.tracking_code;
    await expect(sandbox.settle(id, 'refunded')).rejects.toThrow(SandboxError);
    await sandbox.settle(id, 'success');
    await sandbox.settle(id, 'refunded');
    expect((await providerOf(sandbox).creditCard.getStatus({ tracking_code: id })).data.status).toBe('refunded');
  });

  test('an unknown id is refused', async () => {
    expect((await refusal(createSandbox().settle('MAN-nope-1', 'completed'))).code).toBe('unknown_record');
  });

  test("a deposit's amount may change when it is settled; no other record's may", async () => {
    const sandbox = createSandbox();
    const deposit = (await providerOf(sandbox).manual.startDeposit({ ...customer, amount: 100 })).data.tracking_code;
    expect((await sandbox.settle(deposit, 'completed', { amount: 90.5 })).record.amount).toBe(90.5);
    const withdrawal = (await providerOf(sandbox).manual.startWithdrawal({ ...customer, iban: IBAN, amount: 100 })).data.tracking_code;
    expect((await refusal(sandbox.settle(withdrawal, 'completed', { amount: 90 }))).code).toBe('invalid_amount');
    const other = (await providerOf(sandbox).manual.startDeposit({ ...customer, amount: 100 })).data.tracking_code;
    expect((await refusal(sandbox.settle(other, 'completed', { amount: 0 }))).code).toBe('invalid_amount');
    expect(sandbox.record(withdrawal)?.status).toBe('pending');
  });
});

describe('settle(): callbacks (spec 5.3, 6)', () => {
  let receiver: TestReceiver;
  let sandbox: Sandbox;
  const make = (options: SandboxOptions = {}) =>
    createSandbox({
      startTime: START,
      callbackUrls: { deposit: `${receiver.url}/deposit`, withdrawal: `${receiver.url}/withdrawal`, creditCard: `${receiver.url}/card`, dealerCreditCard: `${receiver.url}/dealer-card` },
      ...options,
    });

  beforeEach(async () => {
    receiver = await startReceiver();
    sandbox = make();
  });
  afterEach(async () => {
    await receiver.close();
  });

  /** The one callback received, with its signature checked here with node:crypto. */
  function received(account: { apiKey: string; secretKey: string }) {
    expect(receiver.received).toHaveLength(1);
    const { headers, body } = receiver.received[0] ?? { headers: {}, body: '' };
    const payload = JSON.parse(body) as Record<string, unknown>;
    const timestamp = String(headers['x-timestamp']);
    expect(headers['content-type']).toBe('application/json');
    expect(headers['x-api-key']).toBe(account.apiKey);
    expect(headers['x-hash']).toBe(sha256(account.apiKey, account.secretKey, String(payload['tracking_code']), String(payload['status']), timestamp));
    expect(payload['hash']).toBe(headers['x-hash']);
    expect(payload['timestamp']).toBe(Number(timestamp));
    expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(60);
    // The SDK's own receiver check accepts it too.
    expect(() => verifyCallback({ headers, body }, account)).not.toThrow();
    return payload;
  }

  test('a deposit callback carries the fields of 6.2 and goes to the deposit URL', async () => {
    const { data } = await providerOf(sandbox).manual.startDeposit({ ...customer, amount: 250 });
    const { callback } = await sandbox.settle(data.tracking_code, 'completed', { amount: 240 });
    expect(callback).toMatchObject({ url: `${receiver.url}/deposit`, delivered: true });
    const payload = received(sandbox.accounts.provider);
    // Every field of the deposit table, and no other; those the record knows are its own.
    expect(Object.keys(payload).sort()).toEqual(Object.keys(CALLBACK_FIELDS.deposit).sort());
    expect(payload).toMatchObject({
      tracking_code: data.tracking_code,
      tx_id: expect.stringMatching(/^\d+$/),
      status: 'completed',
      amount: 240,
      username: 'ada',
      fullname: 'Ada Yılmaz',
      user_id: 'u-1',
      site_id: sandbox.accounts.provider.sites[0].id,
      timestamp: expect.any(Number),
      hash: expect.any(String),
    });
  });

  test('a withdrawal callback adds the IBAN (6.3)', async () => {
    const { data } = await providerOf(sandbox).eiban.startWithdrawal({ ...customer, iban: IBAN, amount: 100 });
    await sandbox.settle(data.tracking_code, 'rejected');
    expect(received(sandbox.accounts.provider)).toMatchObject({ tracking_code: data.tracking_code, status: 'rejected', amount: 100, iban: IBAN });
  });

  test('a crypto withdrawal callback carries the crypto type and wallet address instead of an IBAN', async () => {
    const { data } = await providerOf(sandbox).thirdParty.crypto.startWithdrawal({ ...customer, amount: 100, gateway_id: 11, crypto_type: 'ETH', wallet_address: '0xabc' });
    await sandbox.settle(data.tracking_code, 'completed');
    const payload = received(sandbox.accounts.provider);
    expect(payload).toMatchObject({ crypto_type: 'ETH', wallet_address: '0xabc' });
    expect(payload).not.toHaveProperty('iban');
  });

  test('a provider card callback carries the fields of 6.4; failure adds the error fields', async () => {
    const { data } = await providerOf(sandbox).creditCard.createPayment(card);
    await sandbox.settle(data.tracking_code, 'failed');
    expect(received(sandbox.accounts.provider)).toEqual({
      tracking_code: data.tracking_code,
      order_id: data.order_id,
      status: 'failed',
      amount: 150,
      currency: 'TRY',
      username: 'ada',
      user_id: 'u-1',
      site_id: sandbox.accounts.provider.sites[0].id,
      customer_name: 'Ada Yılmaz',
      customer_email: 'ada@example.test',
      error_code: 'PAYMENT_FAILED',
      error_message: 'The payment was declined',
      timestamp: expect.any(Number),
      hash: expect.any(String),
    });
  });

  test('a successful provider card callback has no error fields, and a refund sends none', async () => {
    const { data } = await providerOf(sandbox).creditCard.createPayment(card);
    await sandbox.settle(data.tracking_code, 'success');
    const payload = received(sandbox.accounts.provider);
    expect(payload).not.toHaveProperty('error_code');
    expect((await sandbox.settle(data.tracking_code, 'refunded')).callback).toBeUndefined();
    expect(receiver.received).toHaveLength(1);
  });

  test('a dealer card callback is signed with the dealer keys and carries the fields of 6.5', async () => {
    const { data } = await dealerOf(sandbox).creditCard.createPayment(dealerCard);
    await sandbox.settle(data.tracking_code, 'success');
    expect(received(sandbox.accounts.dealer)).toEqual({
      success: true,
      tracking_code: data.tracking_code,
      order_id: data.order_id,
      status: 'success',
      amount: 250,
      currency: 'TRY',
      customer_name: 'Ada Yılmaz',
      customer_email: 'ada@example.test',
      customer_phone: '+905550000000',
      status_message: 'Payment completed',
      completed_at: '2026-01-15T09:00:00',
      timestamp: expect.any(Number),
      hash: expect.any(String),
    });
  });

  test('a failed dealer card callback has the error fields instead of completed_at', async () => {
    const { data } = await dealerOf(sandbox).creditCard.createPayment(dealerCard);
    await sandbox.settle(data.tracking_code, 'failed');
    const payload = received(sandbox.accounts.dealer);
    expect(payload).toMatchObject({ success: false, status: 'failed', status_message: 'Payment failed', error_code: 'PAYMENT_FAILED', error_message: 'The payment was declined' });
    expect(payload).not.toHaveProperty('completed_at');
  });

  test('a transfer sends no callback', async () => {
    const walletId = (await dealerOf(sandbox).eibans.list()).eibans[0]?.wallet_id ?? '';
    const { transfer } = await dealerOf(sandbox).transfers.send({ wallet_id: walletId, recipient_iban: IBAN, recipient_name: 'Ada', amount: 50 });
    expect((await sandbox.settle(transfer.transfer_id, 'completed')).callback).toBeUndefined();
    expect(receiver.received).toEqual([]);
  });

  test('a kind without a callback URL is not delivered', async () => {
    const quiet = make({ callbackUrls: { withdrawal: receiver.url } });
    const { data } = await providerOf(quiet).manual.startDeposit({ ...customer, amount: 100 });
    expect((await quiet.settle(data.tracking_code, 'completed')).callback).toBeUndefined();
    expect(quiet.deliveries()).toEqual([]);
  });

  test('setCallbackUrls() points later callbacks elsewhere', async () => {
    const other = await startReceiver();
    try {
      sandbox.setCallbackUrls({ deposit: other.url });
      const { data } = await providerOf(sandbox).manual.startDeposit({ ...customer, amount: 100 });
      await sandbox.settle(data.tracking_code, 'completed');
      expect(other.received).toHaveLength(1);
      expect(receiver.received).toEqual([]);
    } finally {
      await other.close();
    }
  });
});

describe('expiry on the record clock', () => {
  let receiver: TestReceiver;
  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await receiver.close();
  });

  test('a deposit expires after 30 minutes and sends an expired deposit callback', async () => {
    const sandbox = createSandbox({ startTime: START, callbackUrls: { deposit: receiver.url } });
    const { data } = await providerOf(sandbox).manual.startDeposit({ ...customer, amount: 100 });
    expect(await sandbox.clock.advance(30 * 60_000 - 1000)).toEqual([]);
    expect(sandbox.record(data.tracking_code)?.status).toBe('showing');
    const expired = await sandbox.clock.advance(1000);
    expect(expired.map(({ record, callback }) => [record.id, record.status, callback?.delivered])).toEqual([[data.tracking_code, 'expired', true]]);
    expect(JSON.parse(receiver.received[0]?.body ?? '{}')).toMatchObject({ tracking_code: data.tracking_code, status: 'expired' });
    expect(sandbox.clock.now().toISOString()).toBe('2026-01-15T09:30:00.000Z');
  });

  test('withdrawals and provider card payments do not expire; a dealer card payment expires as failed', async () => {
    const sandbox = createSandbox({ startTime: START, callbackUrls: { dealerCreditCard: receiver.url } });
    const withdrawal = (await providerOf(sandbox).thirdParty.bank.startWithdrawal({ ...customer, amount: 100, gateway_id: 1, iban: IBAN, account_holder: 'Ada Yılmaz' })).data.tracking_code;
    const providerCard = (await providerOf(sandbox).creditCard.createPayment(card)).data.tracking_code;
    const payment = (await dealerOf(sandbox).creditCard.createPayment(dealerCard)).data.tracking_code;
    await sandbox.clock.set(new Date('2026-01-16T00:00:00Z'));
    expect(sandbox.record(withdrawal)?.status).toBe('showing');
    expect(sandbox.record(providerCard)?.status).toBe('pending');
    expect(sandbox.record(payment)?.status).toBe('failed');
    expect(JSON.parse(receiver.received[0]?.body ?? '{}')).toMatchObject({ status: 'failed', status_message: 'Payment expired', error_code: 'PAYMENT_EXPIRED' });
  });

  test('lifetimeSeconds sets the lifetime, and expires_at shows it', async () => {
    const sandbox = createSandbox({ startTime: START, lifetimeSeconds: 600 });
    const { data } = await providerOf(sandbox).eiban.startDeposit({ ...customer, amount: 100 });
    expect(data.expires_at).toBe('2026-01-15 09:10:00');
    await sandbox.clock.advance(600_000);
    expect(sandbox.record(data.tracking_code)?.status).toBe('expired');
  });

  test('on a running clock, a request is enough for a due record to expire', async () => {
    const sandbox = createSandbox({ lifetimeSeconds: 0, callbackUrls: { deposit: receiver.url } });
    const { data } = await providerOf(sandbox).manual.startDeposit({ ...customer, amount: 100 });
    await providerOf(sandbox).welcome();
    expect(sandbox.record(data.tracking_code)?.status).toBe('expired');
    await sandbox.idle();
    expect(sandbox.deliveries().map((attempt) => [attempt.trackingCode, attempt.status, attempt.httpStatus])).toEqual([[data.tracking_code, 'expired', 200]]);
  });

  test('an expired deposit cannot be settled', async () => {
    const sandbox = createSandbox({ startTime: START });
    const { data } = await providerOf(sandbox).manual.startDeposit({ ...customer, amount: 100 });
    await sandbox.clock.advance(3_600_000);
    expect((await refusal(sandbox.settle(data.tracking_code, 'completed'))).code).toBe('refused_move');
  });
});
