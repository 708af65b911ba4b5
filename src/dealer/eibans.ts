import * as z from 'zod/mini';
import { defineEndpoint } from '../internal/endpoint.js';
import { lenientObject, responseDecimal, responseInteger, successFlag } from '../internal/schema-blocks.js';
import { NoParams } from '../internal/shared-shapes.js';

/** One of the dealer's E-IBAN accounts with its balances (spec 2.7). */
export const EibanAccount = /* @__PURE__ */ lenientObject(() => ({
  /** The E-IBAN's id, an integer (spec 2.7). */
  id: responseInteger(),
  /** The account's IBAN (spec 2.7). */
  iban_no: z.string(),
  /** The bank's name (spec 2.7). */
  bank_name: z.string(),
  /** The account holder's name (spec 2.7). */
  account_name: z.string(),
  /** Identifies the account in `transactions` and `transfers` calls (spec 2.7). */
  wallet_id: z.string(),
  /** Total balance as a decimal string, for example `"1500.00"` (spec 2.7). */
  balance: responseDecimal(),
  /** Balance available for withdrawal, as a decimal string (spec 2.7). */
  available_balance: responseDecimal(),
}));
export interface EibanAccount extends z.infer<typeof EibanAccount> {}

/** The dealer's E-IBAN accounts (spec 4.13). */
export const EibanAccountList = /* @__PURE__ */ lenientObject(() => ({
  /** `true` when the call succeeded (spec 2.1). */
  success: successFlag(),
  /** The dealer's name (spec 4.13). */
  dealer_name: z.optional(z.string()),
  /** How many E-IBANs the dealer has, an integer (spec 4.13). */
  total_eibans: responseInteger(),
  /** The dealer's E-IBAN accounts with their balances (spec 2.7). */
  eibans: z.array(EibanAccount),
}));
export interface EibanAccountList extends z.infer<typeof EibanAccountList> {}

export const eibanListEndpoint = /* @__PURE__ */ defineEndpoint({
  operation: 'eibans.list',
  // Spec 4.13: method not shown. GET, as for the other reads (docs/spec-gaps.md).
  method: 'GET',
  path: '/eibans',
  hash: 'basic',
  resendable: true,
  params: NoParams,
  response: EibanAccountList,
});
