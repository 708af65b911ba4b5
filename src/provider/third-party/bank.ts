import * as z from 'zod/mini';
import { defineEndpoint } from '../../internal/endpoint.js';
import { join, requiredString, strictObject } from '../../internal/schema-blocks.js';
import { NoParams, iban } from '../../internal/shared-shapes.js';
import { gatewayId, paymentParams } from '../shared.js';
import { GatewayList } from './gateways.js';
import { ThirdPartyDeposit, ThirdPartyWithdrawal } from './records.js';

/** Body of a third-party bank deposit (spec 4.10). */
export const BankDepositParams = /* @__PURE__ */ strictObject(paymentParams);
export type BankDepositParams = z.input<typeof BankDepositParams>;

/**
 * Body of a third-party bank withdrawal (spec 4.10). Bank gateways list `account_holder` among
 * their `required_fields` (spec 2.5) although 4.10 does not, so it may be given (docs/spec-gaps.md).
 */
export const BankWithdrawalParams = /* @__PURE__ */ strictObject(() => join(paymentParams(), {
  /** The `id` of a bank gateway from `gateways.list()`. Required; a positive integer. Check its `min_amount` and `max_amount` (spec 2.5, 4.10). */
  gateway_id: gatewayId(),
  /** The recipient's IBAN. Required; 15 to 34 characters (spec 4.10). */
  iban: iban(),
  /** The account holder's name, for gateways that list it in `required_fields`. Optional; not blank when given (spec 2.5, 4.10). */
  account_holder: z.optional(requiredString()),
}));
export type BankWithdrawalParams = z.input<typeof BankWithdrawalParams>;

export const bankEndpoints = {
  deposit: defineEndpoint({
    operation: 'thirdParty.bank.startDeposit',
    method: 'POST',
    path: '/third-party/bank/start-deposit',
    hash: 'credential',
    resendable: false,
    params: BankDepositParams,
    response: ThirdPartyDeposit,
  }),
  gateways: defineEndpoint({
    operation: 'thirdParty.bank.gateways.list',
    method: 'POST',
    path: '/third-party/bank/gateways',
    hash: 'basic',
    resendable: true,
    params: NoParams,
    response: GatewayList,
  }),
  withdrawal: defineEndpoint({
    operation: 'thirdParty.bank.startWithdrawal',
    method: 'POST',
    path: '/third-party/bank/start-withdrawal',
    hash: 'credential',
    resendable: false,
    params: BankWithdrawalParams,
    response: ThirdPartyWithdrawal,
  }),
};
