import { describe, expectTypeOf, test } from 'vitest';
import { createCallbackReceiver } from '../../src/index.js';
import type { CallbackEventName, CreditCardCallback, DealerCreditCardCallback, DepositCallback, MemoryInboxContext, VerifiedCallback, WithdrawalCallback } from '../../src/index.js';

const receiver = createCallbackReceiver({ apiKey: 'k', secretKey: 's' });

describe('receiver.on narrows the handler by the event name', () => {
  test('<kind>.<status> gives that kind with that status', () => {
    receiver.on('deposit.completed', (callback, context) => {
      expectTypeOf(callback.kind).toEqualTypeOf<'deposit'>();
      expectTypeOf(callback.payload).toExtend<DepositCallback>();
      expectTypeOf(callback.payload.status).toEqualTypeOf<'completed'>();
      expectTypeOf(context).toEqualTypeOf<MemoryInboxContext>();
    });
    receiver.on('creditCard.cancelled', (callback) => {
      expectTypeOf(callback.payload).toExtend<CreditCardCallback>();
      expectTypeOf(callback.payload.status).toEqualTypeOf<'cancelled'>();
    });
  });

  test('<kind> gives every status of that kind', () => {
    receiver.on('withdrawal', (callback) => {
      expectTypeOf(callback.kind).toEqualTypeOf<'withdrawal'>();
      expectTypeOf(callback.payload).toEqualTypeOf<WithdrawalCallback>();
    });
    receiver.on('dealerCreditCard', (callback) => {
      expectTypeOf(callback.payload).toEqualTypeOf<DealerCreditCardCallback>();
    });
  });

  test('"*" gives any callback', () => {
    receiver.on('*', (callback) => {
      expectTypeOf(callback).toEqualTypeOf<VerifiedCallback>();
    });
  });

  test('a status of another kind, a misspelt status and an unknown kind do not compile', () => {
    // @ts-expect-error deposits are never 'success'
    receiver.on('deposit.success', () => undefined);
    // @ts-expect-error provider cards spell it 'cancelled'
    receiver.on('creditCard.canceled', () => undefined);
    // @ts-expect-error no such kind
    receiver.on('refund', () => undefined);
    expectTypeOf<'withdrawal.rejected'>().toExtend<CallbackEventName>();
    expectTypeOf<'dealerCreditCard.cancelled'>().not.toExtend<CallbackEventName>();
  });
});
