import { describe, expectTypeOf, test } from 'vitest';
import type { CardPayment, CardPaymentStatus, CardPaymentStatusResult, ProviderClient } from '../../src/index.js';

declare const provider: ProviderClient;
const payer = { username: 'ada', user_id: 'u-1', firstname: 'Ada', lastname: 'Yılmaz', amount: 150 };

describe('provider.creditCard types', () => {
  test('credential_key is optional in createPayment and may be given', () => {
    expectTypeOf(provider.creditCard.createPayment(payer)).resolves.toEqualTypeOf<CardPayment>();
    void provider.creditCard.createPayment({ ...payer, credential_key: 'k', email: 'a@b.c', phone: '1', description: 'd' });
  });

  test('createPayment refuses a missing required field and an unknown one', () => {
    // @ts-expect-error lastname is required
    void provider.creditCard.createPayment({ username: 'ada', user_id: 'u-1', firstname: 'Ada', amount: 150 });
    // @ts-expect-error currency is not a field of the request
    void provider.creditCard.createPayment({ ...payer, currency: 'TRY' });
    // @ts-expect-error amount is a number
    void provider.creditCard.createPayment({ ...payer, amount: '150' });
  });

  test('the created payment has a string payment_url and a number amount', () => {
    expectTypeOf<CardPayment['data']['payment_url']>().toEqualTypeOf<string>();
    expectTypeOf<CardPayment['data']['tracking_code']>().toEqualTypeOf<string>();
    expectTypeOf<CardPayment['data']['amount']>().toEqualTypeOf<number>();
    expectTypeOf<CardPayment['data']['order_id']>().toEqualTypeOf<string | undefined>();
  });

  test('the status is an open union that suggests the known values', () => {
    expectTypeOf(provider.creditCard.getStatus({ tracking_code: 'CC-1-1' })).resolves.toEqualTypeOf<CardPaymentStatusResult>();
    expectTypeOf<CardPaymentStatusResult['data']['status']>().toEqualTypeOf<CardPaymentStatus>();
    expectTypeOf<'refunded'>().toExtend<CardPaymentStatus>();
    expectTypeOf<'a status added later'>().toExtend<CardPaymentStatus>();
    // @ts-expect-error tracking_code is required
    void provider.creditCard.getStatus({});
  });
});
