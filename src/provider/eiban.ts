import * as z from 'zod/mini';
import { strictObject } from '../internal/schema-blocks.js';
import { defineEndpoint } from '../internal/endpoint.js';
import { envelope, iban } from '../internal/shared-shapes.js';
import { depositStatus, ibanWithdrawalRecord, paymentParams, recordCore, recordEcho } from './shared.js';
import type { DepositStatusShape, PaymentParamsShape, RecordCoreShape, RecordEchoShape } from './shared.js';

/** Body of an E-IBAN deposit (spec 4.7). */
export const EibanDepositParams = /* @__PURE__ */ strictObject(paymentParams);
export type EibanDepositParams = z.input<typeof EibanDepositParams>;

/** The fields of an E-IBAN withdrawal's body. */
export type EibanWithdrawalShape = PaymentParamsShape & {
  /** The recipient's bank account (IBAN). Required; 15 to 34 characters, as for manual withdrawals (docs/spec-gaps.md) (spec 4.7). */
  readonly iban: ReturnType<typeof iban>;
};

/** Body of an E-IBAN withdrawal (spec 4.7); the IBAN is bounded like the manual one (docs/spec-gaps.md). */
export const EibanWithdrawalParams = /* @__PURE__ */ strictObject((): EibanWithdrawalShape => ({ ...paymentParams(), iban: iban() }));
export type EibanWithdrawalParams = z.input<typeof EibanWithdrawalParams>;

/** The fields of an E-IBAN deposit record. */
export type EibanDepositRecordShape = RecordCoreShape & RecordEchoShape & DepositStatusShape & {
  /** The payment page (URL) to redirect the customer to (spec 2.4). Deposits only. */
  readonly payment_url: z.ZodMiniString<string>;
};

/** An E-IBAN deposit record (spec 4.7). */
export const EibanDeposit = /* @__PURE__ */ envelope((): EibanDepositRecordShape => ({
  ...recordCore(),
  ...recordEcho(),
  payment_url: z.string(),
  ...depositStatus(),
}));
export interface EibanDeposit extends z.infer<typeof EibanDeposit> {}

/** An E-IBAN withdrawal record, `pending` on creation (spec 4.7). */
export const EibanWithdrawal = /* @__PURE__ */ envelope(ibanWithdrawalRecord);
export interface EibanWithdrawal extends z.infer<typeof EibanWithdrawal> {}

export const eibanDepositEndpoint = /* @__PURE__ */ defineEndpoint({
  operation: 'eiban.startDeposit',
  method: 'POST',
  path: '/start-eiban-deposit',
  hash: 'credential',
  resendable: false,
  params: EibanDepositParams,
  response: EibanDeposit,
});

export const eibanWithdrawalEndpoint = /* @__PURE__ */ defineEndpoint({
  operation: 'eiban.startWithdrawal',
  method: 'POST',
  path: '/start-eiban-withdraw',
  hash: 'credential',
  resendable: false,
  params: EibanWithdrawalParams,
  response: EibanWithdrawal,
});
