import * as z from 'zod/mini';
import { defineEndpoint } from '../internal/endpoint.js';
import { lenientObject, openEnum, requestAmount, requiredString, responseDecimal, responseString, strictObject, successFlag } from '../internal/schema-blocks.js';
import { iban } from '../internal/shared-shapes.js';
export { TRANSFER_END_STATUSES, isTransferEndStatus } from './transfer-status.js';
export type { TransferEndStatus } from './transfer-status.js';

/** Body of a transfer from an E-IBAN to a bank account (spec 4.13): at least 10.00 TRY. */
export const SendMoneyParams = /* @__PURE__ */ strictObject(() => ({
  /** The source E-IBAN's `wallet_id`, from `dealer.eibans.list()`. Required (spec 4.13). */
  wallet_id: requiredString(),
  /** The recipient's IBAN. Required; 15 to 34 characters (spec 2.7, 4.13). */
  recipient_iban: iban(),
  /** The recipient's name as the bank holds it. Required, not blank (spec 2.7, 4.13). */
  recipient_name: requiredString(),
  /** The amount in TRY, a JSON number. Required; at least 10.00 (spec 4.13, 8: below it the service answers MIN_AMOUNT_ERROR). */
  amount: requestAmount(10),
  /** Free text for the transfer. Optional (spec 2.7, 4.13). */
  description: z.optional(z.string()),
}));
export type SendMoneyParams = z.input<typeof SendMoneyParams>;

/** Query of a transfer's status (spec 4.13). */
export const TransferStatusParams = /* @__PURE__ */ strictObject(() => ({
  /** The `transfer_id` (`TRF-...`) that `send()` returned. Required (spec 2.7, 4.13). */
  transfer_id: requiredString(),
}));
export type TransferStatusParams = z.input<typeof TransferStatusParams>;

/** States of a transfer (spec 3.1); `pending` until it ends. */
export const TransferStatus = /* @__PURE__ */ openEnum(['pending', 'completed', 'failed', 'cancelled']);
export type TransferStatus = z.infer<typeof TransferStatus>;



/** A transfer (spec 2.7). `description` and `completed_at` come with the status query only. */
export const Transfer = /* @__PURE__ */ lenientObject(() => ({
  /** `TRF-` and an alphanumeric segment (spec 2.7, 4.13). */
  transfer_id: z.string(),
  /** The transfer's status: `pending` on creation (spec 3). */
  status: TransferStatus,
  /** Decimal string, for example `"250.00"` (spec 2.7, 4.13). */
  amount: responseDecimal(),
  /** The recipient's IBAN, as sent (spec 2.7). */
  recipient_iban: z.optional(z.string()),
  /** The recipient's name, as sent (spec 2.7). */
  recipient_name: z.optional(responseString()),
  /** `null` or absent when the transfer was sent without one (spec 2.7, 4.13). */
  description: z.optional(z.string()),
  /** ISO 8601 without offset (spec 2.7). */
  created_at: z.optional(z.string()),
  /** ISO 8601; `null` or absent while the transfer has not ended (spec 2.7). */
  completed_at: z.optional(z.string()),
}));
export interface Transfer extends z.infer<typeof Transfer> {}

/** The answer of send-money: the new transfer, `pending` (spec 4.13). */
export const SendMoneyResult = /* @__PURE__ */ lenientObject(() => ({
  /** `true` when the call succeeded (spec 2.1). */
  success: successFlag(),
  /** Human-readable text about the result (spec 2.1). */
  message: z.optional(z.string()),
  /** The transfer (spec 2.7); `description` and `completed_at` in status queries only. */
  transfer: Transfer,
}));
export interface SendMoneyResult extends z.infer<typeof SendMoneyResult> {}

/** The answer of the status query (spec 4.13). */
export const TransferStatusResult = /* @__PURE__ */ lenientObject(() => ({
  /** `true` when the call succeeded (spec 2.1). */
  success: successFlag(),
  /** The dealer's name (spec 4.13). */
  dealer_name: z.optional(z.string()),
  /** The transfer (spec 2.7); `description` and `completed_at` in status queries only. */
  transfer: Transfer,
}));
export interface TransferStatusResult extends z.infer<typeof TransferStatusResult> {}

export const sendMoneyEndpoint = /* @__PURE__ */ defineEndpoint({
  operation: 'transfers.send',
  // Spec 4.13: method not shown. POST, as every body-carrying sample of the spec (docs/spec-gaps.md).
  method: 'POST',
  path: '/send-money',
  hash: 'basic',
  resendable: false,
  params: SendMoneyParams,
  response: SendMoneyResult,
});

export const transferStatusEndpoint = /* @__PURE__ */ defineEndpoint({
  operation: 'transfers.getStatus',
  method: 'GET',
  path: '/transfer-status',
  hash: 'basic',
  resendable: true,
  params: TransferStatusParams,
  response: TransferStatusResult,
});
