import { describe, expect, test } from 'vitest';
import { CALLBACK_KINDS, CALLBACK_STATUSES, isCallbackKind, isCallbackStatus } from '../../src/webhooks/kinds.js';
import { CreditCardCallbackStatus, DealerCreditCardCallbackStatus, DepositCallbackStatus, WithdrawalCallbackStatus } from '../../src/webhooks/schemas.js';

describe('callback kinds and statuses', () => {
  test('the kinds are the four of spec 6, in its order', () => {
    expect(CALLBACK_KINDS).toEqual(['deposit', 'withdrawal', 'creditCard', 'dealerCreditCard']);
  });

  test('each callback status schema knows exactly the statuses of its kind', () => {
    expect(DepositCallbackStatus.options).toEqual(['completed', 'canceled', 'expired', 'failed']);
    expect(WithdrawalCallbackStatus.options).toEqual(['completed', 'rejected', 'failed', 'canceled']);
    expect(CreditCardCallbackStatus.options).toEqual(['success', 'failed', 'cancelled']);
    expect(DealerCreditCardCallbackStatus.options).toEqual(['success', 'failed']);
    expect(DepositCallbackStatus.options).toBe(CALLBACK_STATUSES.deposit);
  });

  test('isCallbackKind accepts the four kinds only, not an inherited property name', () => {
    for (const kind of CALLBACK_KINDS) expect(isCallbackKind(kind), kind).toBe(true);
    for (const value of ['Deposit', 'card', 'toString', '', 3, undefined]) expect(isCallbackKind(value), String(value)).toBe(false);
  });

  test('isCallbackStatus tells the spellings of each kind apart', () => {
    expect(isCallbackStatus('creditCard', 'cancelled')).toBe(true);
    expect(isCallbackStatus('deposit', 'cancelled')).toBe(false);
    expect(isCallbackStatus('deposit', 'canceled')).toBe(true);
    expect(isCallbackStatus('dealerCreditCard', 'cancelled')).toBe(false);
  });
});
