import { describe, expectTypeOf, test } from 'vitest';
import { createCallbackReceiver } from '../../src/index.js';
import type { AppliedCallback, CallbackErrorDetails, CallbackEventName, CardStatusRead, CardStatusReadPayload, CreditCardCallback, DealerCreditCardCallback, DepositCallback, MemoryInboxContext, VerifiedCallback, WithdrawalCallback } from '../../src/index.js';

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
      expectTypeOf(callback.payload.status).toEqualTypeOf<'cancelled'>();
      if (callback.source === 'callback') expectTypeOf(callback.payload).toExtend<CreditCardCallback>();
      else expectTypeOf(callback.payload).toExtend<CardStatusReadPayload>();
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

  test('"*" gives any callback, or a status read', () => {
    receiver.on('*', (callback) => {
      expectTypeOf(callback).toEqualTypeOf<AppliedCallback>();
      if (callback.source === 'callback') expectTypeOf(callback).toEqualTypeOf<VerifiedCallback>();
    });
  });
});

describe('a status read (receiver.reconcile) is told from a callback by source', () => {
  test('a provider card event takes both; only the callback carries what the status answer lacks', () => {
    receiver.on('creditCard.success', (callback) => {
      expectTypeOf(callback.source).toEqualTypeOf<'callback' | 'status'>();
      // A status answer has no site_id, timestamp or signed age (spec 2.6): narrow on source first.
      expectTypeOf(callback.payload).not.toHaveProperty('site_id');
      expectTypeOf(callback.payload).not.toHaveProperty('timestamp');
      expectTypeOf(callback).not.toHaveProperty('ageSeconds');
      if (callback.source === 'callback') {
        expectTypeOf(callback.payload.site_id).toEqualTypeOf<number | undefined>();
        expectTypeOf(callback.payload.hash).toEqualTypeOf<string>();
        expectTypeOf(callback.ageSeconds).toEqualTypeOf<number>();
      } else {
        expectTypeOf(callback).toExtend<CardStatusRead>();
        expectTypeOf(callback.readStatus).toExtend<string>();
        expectTypeOf(callback.payload).not.toHaveProperty('customer_email');
        expectTypeOf(callback.payload).toHaveProperty('updated_at');
      }
      expectTypeOf(callback.payload.amount).toEqualTypeOf<number>();
    });
  });

  test('creditCard.refunded comes from status reads only; other kinds never see one', () => {
    receiver.on('creditCard.refunded', (callback) => {
      expectTypeOf(callback.source).toEqualTypeOf<'status'>();
      expectTypeOf(callback.payload.status).toEqualTypeOf<'refunded'>();
    });
    receiver.on('deposit', (callback) => {
      expectTypeOf(callback.source).toEqualTypeOf<'callback'>();
    });
    expectTypeOf<'creditCard.refunded'>().toExtend<CallbackEventName>();
    // @ts-expect-error no other kind is refunded
    receiver.on('dealerCreditCard.refunded', () => undefined);
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

describe("onError's callback is the handlers' without its hash", () => {
  test('narrows on kind and source as a handler does, and has no payload.hash to read', () => {
    createCallbackReceiver({
      apiKey: 'k',
      secretKey: 's',
      onError: (_error, { callback }: CallbackErrorDetails) => {
        if (callback === undefined) return;
        expectTypeOf(callback.payload.tracking_code).toEqualTypeOf<string>();
        if (callback.source === 'callback') {
          expectTypeOf(callback.ageSeconds).toEqualTypeOf<number>();
          // @ts-expect-error left out of what onError is told: a tracker or a log would hold it
          expectTypeOf(callback.payload.hash).toEqualTypeOf<string>();
        } else expectTypeOf(callback.readStatus).toExtend<string>();
        if (callback.kind === 'deposit') {
          expectTypeOf(callback.payload.amount).toEqualTypeOf<number>();
          expectTypeOf(callback.payload).not.toHaveProperty('hash');
        }
      },
    });
  });
});
