import * as z from 'zod/mini';
import type { APIPromise } from '../core/api-promise.js';
import { strictObject } from '../internal/schema-blocks.js';
import { defineEndpoint } from '../internal/endpoint.js';
import { APIResource } from '../internal/resource.js';
import type { ProviderRequestOptions } from './request-options.js';
import { envelope, iban } from '../internal/shared-shapes.js';
import { depositStatus, ibanWithdrawalRecord, paymentParams, recordCore, recordEcho } from './shared.js';
import type { DepositStatusShape, PaymentParamsShape, RecordCoreShape, RecordEchoShape } from './shared.js';

/** Body of a manual deposit (spec 4.5). */
export const ManualDepositParams = /* @__PURE__ */ strictObject(paymentParams);
export type ManualDepositParams = z.input<typeof ManualDepositParams>;

/** The fields of a manual withdrawal's body. */
export type ManualWithdrawalShape = PaymentParamsShape & {
  /** The customer's IBAN the money is paid to. Required; 15 to 34 characters (spec 4.6, 8). */
  readonly iban: ReturnType<typeof iban>;
};

/** Body of a manual withdrawal (spec 4.6). */
export const ManualWithdrawalParams = /* @__PURE__ */ strictObject((): ManualWithdrawalShape => ({ ...paymentParams(), iban: iban() }));
export type ManualWithdrawalParams = z.input<typeof ManualWithdrawalParams>;

/** The fields of a manual deposit record. */
export type ManualDepositRecordShape = RecordCoreShape & RecordEchoShape & DepositStatusShape & {
  /** The payment page (URL) to redirect the customer to; there the customer may change the amount and sees the IBAN details (spec 4.5). Deposits only. */
  readonly payment_url: z.ZodMiniString<string>;
};

/** A manual deposit record: the customer is sent to `payment_url` (spec 4.5). */
export const ManualDeposit = /* @__PURE__ */ envelope((): ManualDepositRecordShape => ({
  ...recordCore(),
  ...recordEcho(),
  payment_url: z.string(),
  ...depositStatus(),
}));
export interface ManualDeposit extends z.infer<typeof ManualDeposit> {}

/** A manual withdrawal record, `pending` on creation (spec 4.6). */
export const ManualWithdrawal = /* @__PURE__ */ envelope(ibanWithdrawalRecord);
export interface ManualWithdrawal extends z.infer<typeof ManualWithdrawal> {}

export const manualDepositEndpoint = /* @__PURE__ */ defineEndpoint({
  operation: 'manual.startDeposit',
  method: 'POST',
  path: '/start-manual-deposit',
  hash: 'credential',
  resendable: false,
  params: ManualDepositParams,
  response: ManualDeposit,
});

export const manualWithdrawalEndpoint = /* @__PURE__ */ defineEndpoint({
  operation: 'manual.startWithdrawal',
  method: 'POST',
  path: '/start-manual-withdraw',
  hash: 'credential',
  resendable: false,
  params: ManualWithdrawalParams,
  response: ManualWithdrawal,
});

/** Manual bank transactions: IBAN deposits and withdrawals of a site (spec 4.5, 4.6). */
export class ProviderManual extends APIResource {
  /**
   * Starts a manual IBAN deposit; redirect the customer to `data.payment_url`.
   * The end status arrives by deposit callback.
   *
   * @example
   * ```ts
   * import type { ProviderClient } from 'payorch';
   * declare const provider: ProviderClient;
   * declare function redirect(url: string): void; // your framework's
   * const { data } = await provider.manual.startDeposit({ fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1', amount: 250 });
   * redirect(data.payment_url);
   * ```
   */
  startDeposit(params: ManualDepositParams, options?: ProviderRequestOptions): APIPromise<ManualDeposit> {
    return this._send(manualDepositEndpoint, params, options);
  }

  /**
   * Starts a manual withdrawal to the customer's IBAN; it is `pending` until the withdrawal callback.
   *
   * @example
   * ```ts
   * import type { ProviderClient } from 'payorch';
   * declare const provider: ProviderClient;
   * const { data } = await provider.manual.startWithdrawal({
   *   fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1', iban: 'TR330006100519786457841326', amount: 100,
   * });
   * ```
   */
  startWithdrawal(params: ManualWithdrawalParams, options?: ProviderRequestOptions): APIPromise<ManualWithdrawal> {
    return this._send(manualWithdrawalEndpoint, params, options);
  }
}
