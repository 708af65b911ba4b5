import * as z from 'zod/mini';
import { defineEndpoint } from '../internal/endpoint.js';
import { openEnum, requiredString, responseNumber, responseString, strictObject } from '../internal/schema-blocks.js';
import { envelope, iban, positiveAmount } from '../internal/shared-shapes.js';

/**
 * Body of a manual IBAN deposit (spec 4.13). Note `userid`, not `user_id`: the dealer API spells
 * it so, and the SDK keeps the wire name.
 */
export const ManualIbanDepositParams = /* @__PURE__ */ strictObject(() => ({
  /** The customer's username. Required, not blank (spec 4.13). */
  username: requiredString(),
  /** The customer's identifier in your system (spelt `userid` by the dealer API). Required, not blank (spec 4.13). */
  userid: requiredString(),
  /** The customer's full name. Required, not blank (spec 4.13). */
  fullname: requiredString(),
  /** The amount the customer will pay, in TRY. Required; greater than 0 (the spec states no minimum; the service picks an IBAN by its limits) (spec 2.7, 4.13). */
  amount: positiveAmount(),
}));
export type ManualIbanDepositParams = z.input<typeof ManualIbanDepositParams>;

/** Body of a manual withdrawal request (spec 4.13); the recipient IBAN has 15 to 34 characters. */
export const ManualIbanWithdrawalParams = /* @__PURE__ */ strictObject(() => ({
  /** The customer's username. Required, not blank (spec 4.13). */
  username: requiredString(),
  /** The customer's identifier in your system (spelt `userid` by the dealer API). Required, not blank (spec 4.13). */
  userid: requiredString(),
  /** The amount to pay out, in TRY. Required; greater than 0 (the spec states no minimum) (spec 2.7, 4.13). */
  amount: positiveAmount(),
  /** The recipient's name as the bank holds it. Required, not blank (spec 2.7, 4.13). */
  recipient_name: requiredString(),
  /** The recipient's IBAN. Required; 15 to 34 characters (spec 2.7, 4.13). */
  recipient_iban: iban(),
}));
export type ManualIbanWithdrawalParams = z.input<typeof ManualIbanWithdrawalParams>;

/** The IBAN the customer pays into, chosen by the service for the amount (spec 2.7). */
export const ManualIbanDeposit = /* @__PURE__ */ envelope(() => ({
  /** The record's tracking code: `DEP-...` for a deposit, `WDR-...` for a withdrawal (spec 2.1). */
  tracking_code: z.string(),
  /** The bank of the IBAN the customer pays into (spec 2.7). */
  bank_name: z.string(),
  /** The name of the account the customer pays into (spec 2.7). */
  account_name: z.string(),
  /** The IBAN the customer pays into, chosen by amount limits (spec 2.7, 4.13). */
  iban_no: z.string(),
  /** The IBAN in groups of four characters, for display (spec 2.7). */
  formatted_iban: z.optional(z.string()),
  /** The amount, a number (spec 2.7); the spec states no minimum or maximum (spec 8). */
  amount: responseNumber(),
}));
export interface ManualIbanDeposit extends z.infer<typeof ManualIbanDeposit> {}

/** States of a dealer manual withdrawal; only `pending` is shown (spec 3.1). */
export const ManualIbanWithdrawalStatus = /* @__PURE__ */ openEnum(['pending']);
export type ManualIbanWithdrawalStatus = z.infer<typeof ManualIbanWithdrawalStatus>;

/** A manual withdrawal request, `pending` on creation (spec 2.7). */
export const ManualIbanWithdrawal = /* @__PURE__ */ envelope(() => ({
  /** The record's tracking code: `DEP-...` for a deposit, `WDR-...` for a withdrawal (spec 2.1). */
  tracking_code: z.string(),
  /** The withdrawal's status: `pending` on creation (spec 3). */
  status: ManualIbanWithdrawalStatus,
  /** The amount, a number (spec 2.7); the spec states no minimum or maximum (spec 8). */
  amount: responseNumber(),
  /** The recipient's name, as sent (spec 2.7). */
  recipient_name: z.optional(responseString()),
  /** The recipient's IBAN, as sent (spec 2.7). */
  recipient_iban: z.optional(z.string()),
}));
export interface ManualIbanWithdrawal extends z.infer<typeof ManualIbanWithdrawal> {}

export const manualIbanDepositEndpoint = /* @__PURE__ */ defineEndpoint({
  operation: 'manualIban.startDeposit',
  // Spec 4.13: method not shown. POST, as every body-carrying sample of the spec (docs/spec-gaps.md).
  method: 'POST',
  path: '/manual-iban/deposit',
  hash: 'basic',
  // Each call may reserve an IBAN and a tracking code for the amount: never repeated blindly.
  resendable: false,
  params: ManualIbanDepositParams,
  response: ManualIbanDeposit,
});

export const manualIbanWithdrawEndpoint = /* @__PURE__ */ defineEndpoint({
  operation: 'manualIban.startWithdrawal',
  method: 'POST',
  path: '/manual-iban/withdraw',
  hash: 'basic',
  resendable: false,
  params: ManualIbanWithdrawalParams,
  response: ManualIbanWithdrawal,
});
