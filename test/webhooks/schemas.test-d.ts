import { describe, expectTypeOf, test } from 'vitest';
import type { CallbackKind, CallbackStatus, DealerCreditCardCallback, DepositCallback, UnknownCallback, VerifiedCallback, WithdrawalCallback } from '../../src/index.js';

describe('VerifiedCallback', () => {
  test('narrows the payload on kind', () => {
    const callback = {} as VerifiedCallback;
    if (callback.kind === 'withdrawal') expectTypeOf(callback.payload).toEqualTypeOf<WithdrawalCallback>();
    if (callback.kind === 'dealerCreditCard') expectTypeOf(callback.payload).toEqualTypeOf<DealerCreditCardCallback>();
    expectTypeOf<CallbackKind>().toEqualTypeOf<'deposit' | 'withdrawal' | 'creditCard' | 'dealerCreditCard'>();
    expectTypeOf<VerifiedCallback['kind']>().toEqualTypeOf<CallbackKind | 'unknown'>();
    if (callback.kind === 'unknown') expectTypeOf(callback.payload).toEqualTypeOf<UnknownCallback>();
  });

  test('lists the statuses of each kind as the spec spells them', () => {
    expectTypeOf<CallbackStatus<'creditCard'>>().toEqualTypeOf<'success' | 'failed' | 'cancelled'>();
    expectTypeOf<CallbackStatus<'deposit'>>().toEqualTypeOf<'completed' | 'canceled' | 'expired' | 'failed'>();
    expectTypeOf<CallbackStatus<'deposit'>>().toExtend<DepositCallback['status']>();
  });

  test('types the payload fields as the spec does, statuses as open enums', () => {
    expectTypeOf<DepositCallback['amount']>().toEqualTypeOf<number>();
    expectTypeOf<DepositCallback['timestamp']>().toEqualTypeOf<number>();
    expectTypeOf<DepositCallback['site_id']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<'completed'>().toExtend<DepositCallback['status']>();
    expectTypeOf<'a status added later'>().toExtend<DepositCallback['status']>();
    expectTypeOf<WithdrawalCallback['iban']>().toEqualTypeOf<string | undefined>();
  });
});
