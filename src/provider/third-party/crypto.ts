import type * as z from 'zod/mini';
import { defineEndpoint } from '../../internal/endpoint.js';
import { join, requiredString, strictObject } from '../../internal/schema-blocks.js';
import { NoParams, positiveAmount } from '../../internal/shared-shapes.js';
import { customerParams, gatewayId } from '../shared.js';
import { GatewayList } from './gateways.js';
import { ThirdPartyDeposit, ThirdPartyWithdrawal, unshownDepositParams } from './records.js';

/** Body of a third-party crypto deposit: not shown by the spec, assumed to be the bank one's (docs/spec-gaps.md). */
export const CryptoDepositParams = /* @__PURE__ */ strictObject(unshownDepositParams);
export type CryptoDepositParams = z.input<typeof CryptoDepositParams>;

/** Body of a third-party crypto withdrawal (spec 4.11). `crypto_type` comes from the gateway's `supported_crypto_types`. */
export const CryptoWithdrawalParams = /* @__PURE__ */ strictObject(() => join(customerParams(), {
  /** The amount, a JSON number. Required; greater than 0 (the spec states no minimum: the gateway's `min_amount` and `max_amount` apply) (spec 4.11, 8). */
  amount: positiveAmount(),
  /** The `id` of a crypto gateway from `gateways.list()`. Required; a positive integer (spec 2.5, 4.11). */
  gateway_id: gatewayId(),
  /** The coin and network, one of the gateway's `supported_crypto_types` (for example `USDT (TRC20)`). Required (spec 2.5, 4.11). */
  crypto_type: requiredString(),
  /** The customer's wallet address on that network. Required (spec 4.11). */
  wallet_address: requiredString(),
}));
export type CryptoWithdrawalParams = z.input<typeof CryptoWithdrawalParams>;

// Headers and hash of the crypto and wallet calls are not shown (spec 5.1 rule 6): the credential
// hash, as for bank (docs/spec-gaps.md).
export const cryptoEndpoints = {
  deposit: defineEndpoint({
    operation: 'thirdParty.crypto.startDeposit',
    method: 'POST',
    path: '/third-party/crypto/start-deposit',
    hash: 'credential',
    resendable: false,
    params: CryptoDepositParams,
    response: ThirdPartyDeposit,
  }),
  gateways: defineEndpoint({
    operation: 'thirdParty.crypto.gateways.list',
    method: 'POST',
    path: '/third-party/crypto/gateways',
    hash: 'basic',
    resendable: true,
    params: NoParams,
    response: GatewayList,
  }),
  withdrawal: defineEndpoint({
    operation: 'thirdParty.crypto.startWithdrawal',
    method: 'POST',
    path: '/third-party/crypto/start-withdrawal',
    hash: 'credential',
    resendable: false,
    params: CryptoWithdrawalParams,
    response: ThirdPartyWithdrawal,
  }),
};
