import { describe, expectTypeOf, test } from 'vitest';
import type { Gateway, GatewayList, ProviderClient, ThirdPartyDeposit, ThirdPartyWithdrawal } from '../../../src/index.js';
import type { ThirdPartyPaymentMethod, ThirdPartyType } from '../../../src/provider/third-party/gateways.js';

declare const provider: ProviderClient;
const base = { fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1', amount: 300, gateway_id: 1 };

describe('third-party channel types', () => {
  test('every channel lists gateways with numeric bounds and required fields', () => {
    for (const channel of [provider.thirdParty.bank, provider.thirdParty.crypto, provider.thirdParty.wallet]) {
      expectTypeOf(channel.gateways.list()).resolves.toEqualTypeOf<GatewayList>();
    }
    expectTypeOf<GatewayList['data']['gateways']>().toEqualTypeOf<Gateway[]>();
    expectTypeOf<Gateway['min_amount']>().toEqualTypeOf<number>();
    expectTypeOf<Gateway['required_fields']>().toEqualTypeOf<string[]>();
    expectTypeOf<Gateway['supported_crypto_types']>().toEqualTypeOf<string[] | undefined>();
  });

  test('deposits return a record with a payment_url; withdrawals one without', () => {
    expectTypeOf(provider.thirdParty.crypto.startDeposit({ fullname: 'A', username: 'a', user_id: '1', amount: 5 })).resolves.toEqualTypeOf<ThirdPartyDeposit>();
    expectTypeOf<ThirdPartyDeposit['data']['payment_url']>().toEqualTypeOf<string>();
    expectTypeOf<ThirdPartyDeposit['data']['type']>().toEqualTypeOf<ThirdPartyType | undefined>();
    expectTypeOf<ThirdPartyDeposit['data']['payment_method']>().toEqualTypeOf<ThirdPartyPaymentMethod | undefined>();
    expectTypeOf(provider.thirdParty.wallet.startWithdrawal({ ...base, wallet_number: '1' })).resolves.toEqualTypeOf<ThirdPartyWithdrawal>();
  });

  test('each withdrawal takes the fields of its own channel only', () => {
    void provider.thirdParty.bank.startWithdrawal({ ...base, iban: 'TR330006100519786457841326' });
    void provider.thirdParty.crypto.startWithdrawal({ ...base, crypto_type: 'BTC', wallet_address: 'bc1q' });
    void provider.thirdParty.wallet.startWithdrawal({ ...base, wallet_number: '1', account_holder: 'Ada' });
    // @ts-expect-error crypto takes no iban
    void provider.thirdParty.crypto.startWithdrawal({ ...base, crypto_type: 'BTC', wallet_address: 'bc1q', iban: 'TR33' });
    // @ts-expect-error bank needs an iban
    void provider.thirdParty.bank.startWithdrawal(base);
    // @ts-expect-error gateway_id is a number
    void provider.thirdParty.wallet.startWithdrawal({ ...base, gateway_id: '1', wallet_number: '1' });
  });
});
