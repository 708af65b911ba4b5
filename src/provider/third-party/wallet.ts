import * as z from 'zod/mini';
import { defineEndpoint } from '../../internal/endpoint.js';
import { join, requiredString, strictObject } from '../../internal/schema-blocks.js';
import { NoParams, positiveAmount } from '../../internal/shared-shapes.js';
import { customerParams, gatewayId } from '../shared.js';
import { GatewayList } from './gateways.js';
import { ThirdPartyDeposit, ThirdPartyWithdrawal, unshownDepositParams } from './records.js';

/** Body of a third-party wallet deposit: not shown by the spec, assumed to be the bank one's (docs/spec-gaps.md). */
export const WalletDepositParams = /* @__PURE__ */ strictObject(unshownDepositParams);
export type WalletDepositParams = z.input<typeof WalletDepositParams>;

/**
 * Body of a third-party wallet withdrawal (spec 4.12). Some gateways also list `account_holder`
 * in `required_fields` (spec 2.5), so it may be given.
 */
export const WalletWithdrawalParams = /* @__PURE__ */ strictObject(() => join(customerParams(), {
  /** The amount, a JSON number. Required; greater than 0 (the spec states no minimum: the gateway's `min_amount` and `max_amount` apply) (spec 4.12, 8). */
  amount: positiveAmount(),
  /** The `id` of a wallet gateway from `gateways.list()`. Required; a positive integer (spec 2.5, 4.12). */
  gateway_id: gatewayId(),
  /** The customer's wallet number at that gateway. Required (spec 4.12). */
  wallet_number: requiredString(),
  /** The account holder's name, for gateways that list it in `required_fields`. Optional; not blank when given (spec 2.5, 4.12). */
  account_holder: z.optional(requiredString()),
}));
export type WalletWithdrawalParams = z.input<typeof WalletWithdrawalParams>;

// Headers and hash not shown (spec 5.1 rule 6): the credential hash, as for bank (docs/spec-gaps.md).
export const walletEndpoints = {
  deposit: defineEndpoint({
    operation: 'thirdParty.wallet.startDeposit',
    method: 'POST',
    path: '/third-party/wallet/start-deposit',
    hash: 'credential',
    resendable: false,
    params: WalletDepositParams,
    response: ThirdPartyDeposit,
  }),
  gateways: defineEndpoint({
    operation: 'thirdParty.wallet.gateways.list',
    method: 'POST',
    path: '/third-party/wallet/gateways',
    hash: 'basic',
    resendable: true,
    params: NoParams,
    response: GatewayList,
  }),
  withdrawal: defineEndpoint({
    operation: 'thirdParty.wallet.startWithdrawal',
    method: 'POST',
    path: '/third-party/wallet/start-withdrawal',
    hash: 'credential',
    resendable: false,
    params: WalletWithdrawalParams,
    response: ThirdPartyWithdrawal,
  }),
};
