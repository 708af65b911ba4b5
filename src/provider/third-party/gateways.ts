import * as z from 'zod';
import { lenientObject, openEnum, responseInteger, responseNumber } from '../../core/schema-blocks.js';
import { envelope } from '../../core/shared-shapes.js';

/** The `type` of a third-party record (spec 2.4). */
export const ThirdPartyType = openEnum([
  'third_party_bank_deposit',
  'third_party_bank_withdrawal',
  'third_party_crypto_deposit',
  'third_party_crypto_withdrawal',
  'third_party_wallet_deposit',
  'third_party_wallet_withdrawal',
]);
export type ThirdPartyType = z.infer<typeof ThirdPartyType>;

/** The `payment_method` of a third-party record (spec 2.4). */
export const ThirdPartyPaymentMethod = openEnum(['bank', 'crypto', 'wallet']);
export type ThirdPartyPaymentMethod = z.infer<typeof ThirdPartyPaymentMethod>;

/** A withdrawal gateway (spec 2.5). Check `min_amount`, `max_amount` and `required_fields` before a withdrawal. */
export const Gateway = lenientObject({
  id: responseInteger,
  name: z.string(),
  code: z.string(),
  min_amount: responseNumber,
  max_amount: responseNumber,
  required_fields: z.array(z.string()),
  /** Crypto gateways only: coins with their network, for example `USDT (TRC20)`. */
  supported_crypto_types: z.array(z.string()).optional(),
  description: z.string().optional(),
});
export type Gateway = z.infer<typeof Gateway>;

/** The gateway list of a third-party channel (spec 2.5). */
export const GatewayList = envelope(lenientObject({ gateways: z.array(Gateway), count: responseInteger }));
export type GatewayList = z.infer<typeof GatewayList>;
