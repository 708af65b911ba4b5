import * as z from 'zod/mini';
import { lenientObject, openEnum, responseInteger, responseNumber } from '../../internal/schema-blocks.js';
import { envelope } from '../../internal/shared-shapes.js';

/** The `type` of a third-party record (spec 2.4). */
export const ThirdPartyType = /* @__PURE__ */ openEnum([
  'third_party_bank_deposit',
  'third_party_bank_withdrawal',
  'third_party_crypto_deposit',
  'third_party_crypto_withdrawal',
  'third_party_wallet_deposit',
  'third_party_wallet_withdrawal',
]);
export type ThirdPartyType = z.infer<typeof ThirdPartyType>;

/** The `payment_method` of a third-party record (spec 2.4). */
export const ThirdPartyPaymentMethod = /* @__PURE__ */ openEnum(['bank', 'crypto', 'wallet']);
export type ThirdPartyPaymentMethod = z.infer<typeof ThirdPartyPaymentMethod>;

/** A withdrawal gateway (spec 2.5). Check `min_amount`, `max_amount` and `required_fields` before a withdrawal. */
export const Gateway = /* @__PURE__ */ lenientObject(() => ({
  /** The gateway's id, an integer; send it as `gateway_id` in a withdrawal (spec 2.5). */
  id: responseInteger(),
  /** The gateway's display name (spec 2.5). */
  name: z.string(),
  /** The gateway's code (spec 2.5). */
  code: z.string(),
  /** The smallest amount the gateway accepts, a number; a withdrawal below it is refused (spec 2.5, 8). */
  min_amount: responseNumber(),
  /** The largest amount the gateway accepts, a number; a withdrawal above it is refused (spec 2.5, 8). */
  max_amount: responseNumber(),
  /** Names of the extra withdrawal fields the gateway needs: bank `iban`, `account_holder`; crypto `crypto_type`, `wallet_address`; wallet `wallet_number` and for some gateways `account_holder` (spec 2.5). */
  required_fields: z.array(z.string()),
  /** Crypto gateways only: coins with their network, for example `USDT (TRC20)` (spec 2.5). */
  supported_crypto_types: z.optional(z.array(z.string())),
  /** Free text about the gateway (spec 2.5). */
  description: z.optional(z.string()),
}));
export interface Gateway extends z.infer<typeof Gateway> {}

/** The gateway list of a third-party channel (spec 2.5). */
export const GatewayList = /* @__PURE__ */ envelope(() => ({
  /** The channel's gateways (spec 2.5). */
  gateways: z.array(Gateway),
  /** How many gateways, an integer (spec 2.5). */
  count: responseInteger(),
}));
export interface GatewayList extends z.infer<typeof GatewayList> {}
