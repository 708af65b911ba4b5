import * as z from 'zod/mini';
import { strictObject } from '../internal/schema-blocks.js';
import { defineEndpoint } from '../internal/endpoint.js';
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
