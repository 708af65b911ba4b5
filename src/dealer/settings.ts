import * as z from 'zod/mini';
import { defineEndpoint } from '../internal/endpoint.js';
import { lenientObject, openEnum, successFlag } from '../internal/schema-blocks.js';
import { NoParams } from '../internal/shared-shapes.js';

/** Whether a payment method is switched on for the dealer (spec 2.7). */
export const PaymentMethodState = /* @__PURE__ */ openEnum(['active', 'inactive']);
export type PaymentMethodState = z.infer<typeof PaymentMethodState>;

/** The dealer's name and which payment methods it may use (spec 2.7, 4.13). */
export const DealerSettings = /* @__PURE__ */ lenientObject(() => ({
  /** `true` when the call succeeded (spec 2.1). */
  success: successFlag(),
  /** Welcome text with the dealer's name (spec 4.13). */
  message: z.optional(z.string()),
  /** The dealer's name (spec 2.7). */
  dealer_name: z.string(),
  /** Whether each payment method is enabled for the dealer (spec 2.7). */
  payment_methods: lenientObject(() => ({
    /** Card payments: `active` or `inactive` (spec 2.7). */
    credit_card: PaymentMethodState,
    /** E-IBAN: `active` or `inactive` (spec 2.7). */
    eiban: PaymentMethodState,
    /** Manual IBAN: `active` or `inactive` (spec 2.7). */
    manual_iban: PaymentMethodState,
  })),
}));
export interface DealerSettings extends z.infer<typeof DealerSettings> {}

export const settingsEndpoint = /* @__PURE__ */ defineEndpoint({
  operation: 'settings.get',
  // Spec 4.13: method not shown. GET, as for the other parameterless reads (docs/spec-gaps.md).
  method: 'GET',
  path: '/settings',
  hash: 'basic',
  resendable: true,
  params: NoParams,
  response: DealerSettings,
});
