import { describe, expectTypeOf, test } from 'vitest';
import type { APIPromise, DealerClient, LogLevel, ManualDeposit, ProviderClient, TransactionList, TransferStatusResult, WithResponse } from '../../src/index.js';

declare const provider: ProviderClient;
declare const dealer: DealerClient;

describe('the conventions of the anchors, at the call site', () => {
  test('every call is an APIPromise: awaited it is the result; withResponse() adds the Response; asResponse() is the Response', () => {
    const call = provider.manual.startDeposit({ fullname: 'Ada', username: 'ada', user_id: 'u-1', amount: 250 });
    expectTypeOf(call).toEqualTypeOf<APIPromise<ManualDeposit>>();
    expectTypeOf(call).resolves.toEqualTypeOf<ManualDeposit>();
    expectTypeOf(call.withResponse()).resolves.toEqualTypeOf<WithResponse<ManualDeposit>>();
    expectTypeOf<WithResponse<ManualDeposit>>().toEqualTypeOf<{ readonly body: ManualDeposit; readonly response: Response }>();
    expectTypeOf(call.asResponse()).resolves.toEqualTypeOf<Response>();
    expectTypeOf(dealer.transfers.getStatus({ transfer_id: 'TRF-1' }).withResponse()).resolves.toEqualTypeOf<WithResponse<TransferStatusResult>>();
    expectTypeOf(provider.request({ method: 'POST', path: '/x', hash: 'basic' }).asResponse()).resolves.toEqualTypeOf<Response>();
  });

  test('the iterator gives each page with its answer', () => {
    const pages = dealer.transactions.iterate({ wallet_id: 'W', start_date: '2026-11-01', end_date: '2026-11-30' }).pages();
    expectTypeOf(pages).toEqualTypeOf<AsyncGenerator<WithResponse<TransactionList>, void, undefined>>();
  });

  test('withOptions takes settings, not keys, the address or the site key, and gives the same client', () => {
    expectTypeOf(provider.withOptions({ timeout: 5_000, maxRetries: 0, logLevel: 'debug' })).toEqualTypeOf<ProviderClient>();
    expectTypeOf(dealer.withOptions({ fetch: globalThis.fetch, logger: console })).toEqualTypeOf<DealerClient>();
    // @ts-expect-error keys belong to a new client
    void provider.withOptions({ apiKey: 'k' });
    // @ts-expect-error the address belongs to a new client
    void dealer.withOptions({ baseUrl: 'https://pay.example.com' });
    // @ts-expect-error the site key stays: withSite(key) for another
    void provider.withOptions({ credentialKey: 'c' });
    // @ts-expect-error not a level
    void provider.withOptions({ logLevel: 'verbose' });
    expectTypeOf<LogLevel>().toEqualTypeOf<'off' | 'error' | 'warn' | 'info' | 'debug'>();
  });
});
