import { describe, expectTypeOf, test } from 'vitest';
import type { DepositStatus, ManualDeposit, ManualWithdrawal, ProviderClient, WithdrawalStatus } from '../../src/index.js';

declare const provider: ProviderClient;
const customer = { fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1' };

describe('provider.manual types', () => {
  test('a deposit returns its record with a string payment_url and an open deposit status', () => {
    expectTypeOf(provider.manual.startDeposit({ ...customer, amount: 250 })).resolves.toEqualTypeOf<ManualDeposit>();
    expectTypeOf<ManualDeposit['data']['payment_url']>().toEqualTypeOf<string>();
    expectTypeOf<ManualDeposit['data']['status']>().toEqualTypeOf<DepositStatus>();
    expectTypeOf<'showing' | 'completed' | 'canceled' | 'expired'>().toExtend<DepositStatus>();
    expectTypeOf<ManualDeposit['data']['customer']>().toEqualTypeOf<{ fullname: string; username: string; user_id: string } | undefined>();
  });

  test('a withdrawal returns its record with an open withdrawal status and no payment_url', () => {
    expectTypeOf(provider.manual.startWithdrawal({ ...customer, iban: 'TR330006100519786457841326', amount: 100 })).resolves.toEqualTypeOf<ManualWithdrawal>();
    expectTypeOf<ManualWithdrawal['data']['status']>().toEqualTypeOf<WithdrawalStatus>();
    // @ts-expect-error a withdrawal has no payment_url (spec 2.4)
    expectTypeOf<ManualWithdrawal['data']['payment_url']>().toBeUnknown();
  });

  test('requests refuse unknown and missing fields', () => {
    // @ts-expect-error coupon is not a field of the request
    void provider.manual.startDeposit({ ...customer, amount: 250, coupon: 'X' });
    // @ts-expect-error iban is required
    void provider.manual.startWithdrawal({ ...customer, amount: 100 });
    // @ts-expect-error user_id is a string
    void provider.manual.startDeposit({ ...customer, user_id: 1, amount: 250 });
  });
});
