import { describe, expect, test } from 'vitest';
import { CreditCardCallback, DealerCreditCardCallback, DepositCallback, WithdrawalCallback } from '../../src/schemas/index.js';
import { unsigned } from '../helpers/callbacks.js';

const signedPart = { timestamp: 1763812345, hash: 'c90d4cbba82957e22a62eeec98db27ae0ff4aa2e80351d3cb90858b12c79940e' };

describe('DepositCallback (spec 6.2)', () => {
  const body = { ...unsigned.deposit, ...signedPart };

  test('parses the body of the spec unchanged', () => {
    expect(DepositCallback.parse(body)).toEqual(body);
  });

  test.each(['completed', 'canceled', 'expired', 'failed'])('accepts the status %s', (status) => {
    expect(DepositCallback.parse({ ...body, status }).status).toBe(status);
  });

  test('keeps a status the spec does not list, so that a new one is not lost', () => {
    expect(DepositCallback.parse({ ...body, status: 'partially_completed' }).status).toBe('partially_completed');
  });

  test('converts numeric strings of amount, site_id and timestamp, and numeric ids to text', () => {
    const parsed = DepositCallback.parse({ ...body, amount: '250.50', site_id: '7', timestamp: '1763812345', tx_id: 9001, user_id: 42 });
    expect(parsed).toMatchObject({ amount: 250.5, site_id: 7, timestamp: 1763812345, tx_id: '9001', user_id: '42' });
  });

  test('keeps unknown fields', () => {
    expect(DepositCallback.parse({ ...body, currency: 'TRY' })).toMatchObject({ currency: 'TRY' });
  });

  test('needs only the signed fields and the amount', () => {
    const lean = { tracking_code: body.tracking_code, status: 'completed', amount: 1, ...signedPart };
    expect(DepositCallback.parse(lean)).toEqual(lean);
  });

  test.each(['tracking_code', 'status', 'amount', 'timestamp', 'hash'])('refuses a body without %s', (field) => {
    expect(DepositCallback.safeParse({ ...body, [field]: undefined }).success).toBe(false);
  });

  test.each([
    ['amount', 'lots'],
    ['timestamp', 1763812345.5],
    ['timestamp', '17638x'],
    ['site_id', 'seven'],
    ['status', 3],
  ])('refuses %s = %j', (field, value) => {
    expect(DepositCallback.safeParse({ ...body, [field]: value }).success).toBe(false);
  });
});

describe('WithdrawalCallback (spec 6.3)', () => {
  const body = { ...unsigned.withdrawal, ...signedPart };

  test('parses the body of the spec with its iban', () => {
    expect(WithdrawalCallback.parse(body)).toEqual(body);
  });

  test.each(['completed', 'rejected', 'failed', 'canceled'])('accepts the status %s', (status) => {
    expect(WithdrawalCallback.parse({ ...body, status }).status).toBe(status);
  });

  test('accepts a crypto or wallet withdrawal without iban and keeps what it carries instead (spec 6.6)', () => {
    const crypto = { ...body, tracking_code: 'TPCW-c2-1763812000', iban: undefined, wallet_address: 'TQ1xyz', crypto_type: 'USDT (TRC20)' };
    expect(WithdrawalCallback.parse(crypto)).toMatchObject({ wallet_address: 'TQ1xyz', crypto_type: 'USDT (TRC20)' });
  });
});

describe('CreditCardCallback (spec 6.4)', () => {
  const body = { ...unsigned.creditCard, ...signedPart };

  test('parses the body of the spec', () => {
    expect(CreditCardCallback.parse(body)).toEqual(body);
  });

  test('parses a failure with its error code and message', () => {
    const failed = { ...body, status: 'failed', error_code: 'E51', error_message: 'Insufficient funds' };
    expect(CreditCardCallback.parse(failed)).toEqual(failed);
  });

  test.each(['success', 'failed', 'cancelled'])('accepts the status %s', (status) => {
    expect(CreditCardCallback.parse({ ...body, status }).status).toBe(status);
  });

  test('keeps a numeric order id as text', () => {
    expect(CreditCardCallback.parse({ ...body, order_id: 55 }).order_id).toBe('55');
  });
});

describe('DealerCreditCardCallback (spec 6.5)', () => {
  const body = { ...unsigned.dealerCreditCard, ...signedPart };

  test('parses the body of the spec', () => {
    expect(DealerCreditCardCallback.parse(body)).toEqual(body);
  });

  test('parses a failure that carries error fields instead of the success-only ones', () => {
    const failed = { success: false, tracking_code: body.tracking_code, order_id: 'ORD-77', status: 'failed', error_code: 'EXPIRED', error_message: 'Payment expired', ...signedPart };
    expect(DealerCreditCardCallback.parse(failed)).toEqual(failed);
  });

  test('reads success given as 1, 0, "true" or "false"', () => {
    expect(DealerCreditCardCallback.parse({ ...body, success: 0 }).success).toBe(false);
    expect(DealerCreditCardCallback.parse({ ...body, success: 'true' }).success).toBe(true);
  });
});
