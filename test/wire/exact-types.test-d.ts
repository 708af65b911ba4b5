import { describe, expectTypeOf, test } from 'vitest';
import type { CALLBACK_FIELDS } from '../../src/webhooks/payload.js';
import type {
  CardPayment,
  CardPaymentStatusResult,
  CreditCardCallback,
  DealerCardPayment,
  DealerCreditCardCallback,
  DealerSettings,
  DepositCallback,
  EibanAccount,
  EibanAccountList,
  EibanDeposit,
  EibanWithdrawal,
  Gateway,
  GatewayList,
  ManualDeposit,
  ManualIbanDeposit,
  ManualIbanWithdrawal,
  ManualWithdrawal,
  SendMoneyResult,
  Site,
  SiteList,
  ThirdPartyDeposit,
  ThirdPartyWithdrawal,
  Transaction,
  TransactionList,
  Transfer,
  TransferStatusResult,
  VerifiedCallback,
  Welcome,
  WithdrawalCallback,
} from '../../src/index.js';
import type { Pagination } from '../../src/dealer/transactions.js';

/*
 * Answer and callback types list exactly the spec's fields. Each key set is pinned
 * in both directions: a field the spec lists compiles, anything else (a typo, a field of another
 * kind) does not, because the types carry no index signature.
 */

declare const deposit: ManualDeposit;
declare const callback: VerifiedCallback;

describe('a misspelt field or a field of another kind does not compile', () => {
  test('answers', () => {
    // @ts-expect-error the spec's name is tracking_code
    expectTypeOf(deposit.data).toHaveProperty('trackingCode');
    // @ts-expect-error a manual deposit has no iban (spec 4.5)
    expectTypeOf(deposit.data).toHaveProperty('iban');
    // @ts-expect-error no such top-level field
    expectTypeOf(deposit).toHaveProperty('sucess');
    // @ts-expect-error a withdrawal has no payment_url (spec 2.4)
    expectTypeOf(({} as ManualWithdrawal).data).toHaveProperty('payment_url');
    // @ts-expect-error transfer ids are transfer_id (spec 2.7)
    expectTypeOf(({} as SendMoneyResult).transfer).toHaveProperty('transferId');
  });

  test('callbacks, once narrowed on kind', () => {
    if (callback.kind === 'deposit') {
      // @ts-expect-error iban belongs to withdrawal callbacks (spec 6.3)
      expectTypeOf(callback.payload).toHaveProperty('iban');
      // @ts-expect-error order_id belongs to card callbacks (spec 6.4)
      expectTypeOf(callback.payload).toHaveProperty('order_id');
      // @ts-expect-error misspelt tracking_code
      expectTypeOf(callback.payload).toHaveProperty('trackingCode');
    }
    if (callback.kind === 'creditCard') {
      // @ts-expect-error customer_phone belongs to dealer card callbacks (spec 6.5)
      expectTypeOf(callback.payload).toHaveProperty('customer_phone');
    }
    if (callback.kind === 'dealerCreditCard') {
      // @ts-expect-error site_id belongs to provider callbacks (spec 6.4)
      expectTypeOf(callback.payload).toHaveProperty('site_id');
    }
  });

  test('unlisted fields are reached through Record<string, unknown>, the documented way', () => {
    const extra: Readonly<Record<string, unknown>> = deposit.data;
    expectTypeOf(extra['new_field']).toEqualTypeOf<unknown>();
  });
});

describe('every field the spec lists compiles, and nothing else', () => {
  test('callbacks (spec 6.2 to 6.5): exactly the fields of their tables, which the receiver reads them by', () => {
    expectTypeOf<keyof DepositCallback>().toEqualTypeOf<keyof typeof CALLBACK_FIELDS.deposit>();
    expectTypeOf<keyof WithdrawalCallback>().toEqualTypeOf<keyof typeof CALLBACK_FIELDS.withdrawal>();
    expectTypeOf<keyof CreditCardCallback>().toEqualTypeOf<keyof typeof CALLBACK_FIELDS.creditCard>();
    expectTypeOf<keyof DealerCreditCardCallback>().toEqualTypeOf<keyof typeof CALLBACK_FIELDS.dealerCreditCard>();
  });

  test('provider answers (spec 2.2 to 2.6, 4.3 to 4.12)', () => {
    type Envelope = 'success' | 'message' | 'data' | 'timestamp';
    type Echo = 'site' | 'customer' | 'expires_at' | 'created_at';
    expectTypeOf<keyof Welcome>().toEqualTypeOf<'success' | 'message' | 'info' | 'next_step' | 'provider' | 'timestamp'>();
    expectTypeOf<keyof Welcome['provider']>().toEqualTypeOf<'id' | 'name' | 'is_active'>();
    expectTypeOf<keyof SiteList>().toEqualTypeOf<'success' | 'provider' | 'total_sites' | 'sites' | 'timestamp'>();
    expectTypeOf<keyof Site>().toEqualTypeOf<'id' | 'name' | 'is_active' | 'created_at'>();
    expectTypeOf<keyof ManualDeposit>().toEqualTypeOf<Envelope>();
    expectTypeOf<keyof ManualDeposit['data']>().toEqualTypeOf<'tracking_code' | 'amount' | Echo | 'payment_url' | 'status'>();
    expectTypeOf<keyof ManualWithdrawal['data']>().toEqualTypeOf<'tracking_code' | 'amount' | Echo | 'iban' | 'status'>();
    expectTypeOf<keyof EibanDeposit['data']>().toEqualTypeOf<'tracking_code' | 'amount' | Echo | 'payment_url' | 'status'>();
    expectTypeOf<keyof EibanWithdrawal['data']>().toEqualTypeOf<'tracking_code' | 'amount' | Echo | 'iban' | 'status'>();
    expectTypeOf<keyof CardPayment['data']>().toEqualTypeOf<'tracking_code' | 'payment_url' | 'order_id' | 'amount' | 'currency'>();
    expectTypeOf<keyof CardPaymentStatusResult['data']>().toEqualTypeOf<
      'tracking_code' | 'order_id' | 'status' | 'amount' | 'currency' | 'username' | 'user_id' | 'created_at' | 'updated_at'
    >();
    expectTypeOf<keyof GatewayList['data']>().toEqualTypeOf<'gateways' | 'count'>();
    expectTypeOf<keyof Gateway>().toEqualTypeOf<'id' | 'name' | 'code' | 'min_amount' | 'max_amount' | 'required_fields' | 'supported_crypto_types' | 'description'>();
    expectTypeOf<keyof ThirdPartyDeposit['data']>().toEqualTypeOf<'tracking_code' | 'amount' | Echo | 'type' | 'payment_method' | 'payment_url' | 'status'>();
    expectTypeOf<keyof ThirdPartyWithdrawal['data']>().toEqualTypeOf<'tracking_code' | 'amount' | Echo | 'type' | 'payment_method' | 'status'>();
  });

  test('dealer answers (spec 2.7, 4.13)', () => {
    expectTypeOf<keyof DealerSettings>().toEqualTypeOf<'success' | 'message' | 'dealer_name' | 'payment_methods'>();
    expectTypeOf<keyof DealerSettings['payment_methods']>().toEqualTypeOf<'credit_card' | 'eiban' | 'manual_iban'>();
    expectTypeOf<keyof ManualIbanDeposit['data']>().toEqualTypeOf<'tracking_code' | 'bank_name' | 'account_name' | 'iban_no' | 'formatted_iban' | 'amount'>();
    expectTypeOf<keyof ManualIbanWithdrawal['data']>().toEqualTypeOf<'tracking_code' | 'status' | 'amount' | 'recipient_name' | 'recipient_iban'>();
    expectTypeOf<keyof EibanAccountList>().toEqualTypeOf<'success' | 'dealer_name' | 'total_eibans' | 'eibans'>();
    expectTypeOf<keyof EibanAccount>().toEqualTypeOf<'id' | 'iban_no' | 'bank_name' | 'account_name' | 'wallet_id' | 'balance' | 'available_balance'>();
    expectTypeOf<keyof TransactionList>().toEqualTypeOf<'success' | 'dealer_name' | 'wallet_id' | 'date_range' | 'pagination' | 'transactions'>();
    expectTypeOf<keyof Pagination>().toEqualTypeOf<'current_page' | 'per_page' | 'total_records' | 'total_pages' | 'has_more'>();
    expectTypeOf<keyof Transaction>().toEqualTypeOf<'transactionId' | 'amount' | 'type' | 'description' | 'senderName' | 'senderIban' | 'date'>();
    expectTypeOf<keyof SendMoneyResult>().toEqualTypeOf<'success' | 'message' | 'transfer'>();
    expectTypeOf<keyof TransferStatusResult>().toEqualTypeOf<'success' | 'dealer_name' | 'transfer'>();
    expectTypeOf<keyof Transfer>().toEqualTypeOf<'transfer_id' | 'status' | 'amount' | 'recipient_iban' | 'recipient_name' | 'description' | 'created_at' | 'completed_at'>();
    expectTypeOf<keyof DealerCardPayment['data']>().toEqualTypeOf<'tracking_code' | 'payment_url' | 'order_id' | 'amount' | 'currency'>();
  });
});

describe('null reads as absent, and the types say so', () => {
  test('optional fields are `T | undefined`, never null', () => {
    expectTypeOf<DepositCallback['tx_id']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<CreditCardCallback['error_code']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<DealerCreditCardCallback['completed_at']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<ManualDeposit['data']['expires_at']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<ManualDeposit['timestamp']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Transaction['senderIban']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Transfer['completed_at']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<CardPaymentStatusResult['data']['updated_at']>().toEqualTypeOf<string | undefined>();
  });

  test('statuses stay open: the spec values are suggested, a new one is a string', () => {
    expectTypeOf<'completed' | 'canceled' | 'expired'>().toExtend<DepositCallback['status']>();
    expectTypeOf<'a status added later'>().toExtend<WithdrawalCallback['status']>();
  });
});
