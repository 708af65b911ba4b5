import { describe, expectTypeOf, test } from 'vitest';
import { DealerClient } from '../../src/index.js';
import type { PaymentMethodState } from '../../src/dealer/settings.js';
import type {
  APIError,
  DealerCardPayment,
  ClientOptions,
  DealerCardPaymentParams,
  DealerErrorCode,
  DealerSettings,
  EibanAccountList,
  ManualIbanDeposit,
  ManualIbanDepositParams,
  ManualIbanWithdrawal,
  ManualIbanWithdrawalParams,
  RequestOptions,
  SendMoneyParams,
  SendMoneyResult,
  Transaction,
  TransactionIterable,
  TransactionList,
  TransferStatus,
  TransferStatusResult,
} from '../../src/index.js';

declare const dealer: DealerClient;
declare const deposit: ManualIbanDepositParams;
declare const withdrawal: ManualIbanWithdrawalParams;
declare const transfer: SendMoneyParams;
declare const card: DealerCardPaymentParams;
const range = { wallet_id: 'WLT-A1', start_date: '2026-03-01', end_date: '2026-03-03' };

describe('DealerClient types', () => {
  test('takes the ClientOptions of every client', () => {
    expectTypeOf(DealerClient).constructorParameters.toEqualTypeOf<[options?: ClientOptions | undefined]>();
    // The keys and the service's address may come from the environment, the whole argument too.
    new DealerClient();
    new DealerClient({ baseUrl: 'https://pay.example.com' });
    new DealerClient({ apiKey: 'k', secretKey: 's' });
    // @ts-expect-error the address is text
    new DealerClient({ baseUrl: 443 });
  });

  test('each call resolves to its answer type', () => {
    expectTypeOf(dealer.settings.get()).resolves.toEqualTypeOf<DealerSettings>();
    expectTypeOf(dealer.manualIban.startDeposit(deposit)).resolves.toEqualTypeOf<ManualIbanDeposit>();
    expectTypeOf(dealer.manualIban.startWithdrawal(withdrawal)).resolves.toEqualTypeOf<ManualIbanWithdrawal>();
    expectTypeOf(dealer.eibans.list()).resolves.toEqualTypeOf<EibanAccountList>();
    expectTypeOf(dealer.transactions.list(range)).resolves.toEqualTypeOf<TransactionList>();
    expectTypeOf(dealer.transfers.send(transfer)).resolves.toEqualTypeOf<SendMoneyResult>();
    expectTypeOf(dealer.transfers.getStatus({ transfer_id: 'TRF-1' })).resolves.toEqualTypeOf<TransferStatusResult>();
    expectTypeOf(dealer.creditCard.createPayment(card)).resolves.toEqualTypeOf<DealerCardPayment>();
  });

  test('every call takes RequestOptions as its last argument', () => {
    expectTypeOf<Parameters<DealerClient['settings']['get']>[0]>().toEqualTypeOf<RequestOptions | undefined>();
    expectTypeOf<Parameters<DealerClient['eibans']['list']>[0]>().toEqualTypeOf<RequestOptions | undefined>();
    expectTypeOf<Parameters<DealerClient['manualIban']['startWithdrawal']>[1]>().toEqualTypeOf<RequestOptions | undefined>();
    expectTypeOf<Parameters<DealerClient['transfers']['send']>[1]>().toEqualTypeOf<RequestOptions | undefined>();
    expectTypeOf<Parameters<DealerClient['transactions']['iterate']>[1]>().toEqualTypeOf<RequestOptions | undefined>();
  });

  test('decimals of answers are strings, amounts of offers numbers', () => {
    expectTypeOf<EibanAccountList['eibans'][number]['balance']>().toEqualTypeOf<string>();
    expectTypeOf<Transaction['amount']>().toEqualTypeOf<string>();
    expectTypeOf<SendMoneyResult['transfer']['amount']>().toEqualTypeOf<string>();
    expectTypeOf<ManualIbanDeposit['data']['amount']>().toEqualTypeOf<number>();
    expectTypeOf<TransactionList['pagination']['has_more']>().toEqualTypeOf<boolean>();
  });

  test('states are open unions that editors can complete', () => {
    expectTypeOf<'pending'>().toExtend<TransferStatus>();
    expectTypeOf<'a-future-state'>().toExtend<TransferStatus>();
    expectTypeOf<'active'>().toExtend<PaymentMethodState>();
    expectTypeOf<DealerSettings['payment_methods']['eiban']>().toEqualTypeOf<PaymentMethodState>();
  });

  test('requests take amounts as numbers and the dealer wire name userid', () => {
    // @ts-expect-error amounts are JSON numbers
    void dealer.transfers.send({ wallet_id: 'W', recipient_iban: 'TR', recipient_name: 'A', amount: '250.00' });
    // @ts-expect-error the dealer API spells it userid
    void dealer.manualIban.startDeposit({ username: 'a', user_id: 'u', fullname: 'A', amount: 1 });
    // @ts-expect-error page belongs to list(), not to iterate()
    void dealer.transactions.iterate({ ...range, page: 2 });
  });

  test('iterate() is an async iterable of transactions that collects to an array', () => {
    const iterable = dealer.transactions.iterate(range);
    expectTypeOf(iterable).toEqualTypeOf<TransactionIterable>();
    expectTypeOf(iterable).toExtend<AsyncIterable<Transaction>>();
    expectTypeOf(iterable.toArray()).resolves.toEqualTypeOf<Transaction[]>();
  });

  test('APIError.code is the union of the dealer codes, open to new ones', () => {
    expectTypeOf<APIError['code']>().toEqualTypeOf<DealerErrorCode | undefined>();
    expectTypeOf<'INSUFFICIENT_BALANCE'>().toExtend<DealerErrorCode>();
  });
});
