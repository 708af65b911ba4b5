import * as z from 'zod/mini';
import { envelope, positiveAmount } from '../../internal/shared-shapes.js';
import { join } from '../../internal/schema-blocks.js';
import { DepositStatus, WithdrawalStatus, customerParams, recordCore, recordEcho } from '../shared.js';
import type { CustomerParamsShape } from '../shared.js';
import { ThirdPartyPaymentMethod, ThirdPartyType } from './gateways.js';

/**
 * The fields of a third-party record (spec 2.4). `type` and `payment_method` only describe the
 * record the caller just created, so a leaner answer without them still parses.
 */
const thirdPartyCore = () => join(recordCore(), recordEcho(), {
  /** The kind of record: `third_party_{bank,crypto,wallet}_{deposit,withdrawal}` (spec 2.4). */
  type: z.optional(ThirdPartyType),
  /** The channel: `bank`, `crypto` or `wallet` (spec 2.4). */
  payment_method: z.optional(ThirdPartyPaymentMethod),
});

/** A third-party deposit record; redirect the customer to `data.payment_url` (spec 4.10 to 4.12). */
export const ThirdPartyDeposit = /* @__PURE__ */ envelope(() => join(thirdPartyCore(), {
  /** The tracking page (URL) to redirect the customer to; there the customer picks a gateway and gets the payment details (spec 4.10). Deposits only. */
  payment_url: z.string(),
  /** The deposit's status: `showing` on creation; the end status arrives by deposit callback (spec 3, 6.2). */
  status: DepositStatus,
}));
export interface ThirdPartyDeposit extends z.infer<typeof ThirdPartyDeposit> {}

/** A third-party withdrawal record, `showing` on creation (spec 4.10 to 4.12). */
export const ThirdPartyWithdrawal = /* @__PURE__ */ envelope(() => join(thirdPartyCore(), {
  /** The withdrawal's status: `showing` on creation; the end status arrives by withdrawal callback (spec 3, 6.3). */
  status: WithdrawalStatus,
}));
export interface ThirdPartyWithdrawal extends z.infer<typeof ThirdPartyWithdrawal> {}

/** The deposit body of crypto and wallet, which the spec does not show: the bank one's fields (docs/spec-gaps.md). */
export type UnshownDepositParamsShape = CustomerParamsShape & {
  /** The amount in TRY, a JSON number. Required; greater than 0 (the spec states no minimum for crypto and wallet: spec 4.11, 4.12, 8). */
  readonly amount: ReturnType<typeof positiveAmount>;
};

export const unshownDepositParams = (): UnshownDepositParamsShape => join(customerParams(), { amount: positiveAmount() });

