import * as z from 'zod';
import { defineEndpoint } from '../core/endpoint.js';
import { lenientObject, openEnum, successFlag } from '../core/schema-blocks.js';
import { NoParams } from '../core/shared-shapes.js';

/** Whether a payment method is switched on for the dealer (spec 2.7). */
export const PaymentMethodState = openEnum(['active', 'inactive']);
export type PaymentMethodState = z.infer<typeof PaymentMethodState>;

/** The dealer's name and which payment methods it may use (spec 2.7, 4.13). */
export const DealerSettings = lenientObject({
  success: successFlag,
  /** Welcome text with the dealer's name. */
  message: z.string().optional(),
  dealer_name: z.string(),
  payment_methods: lenientObject({
    credit_card: PaymentMethodState,
    eiban: PaymentMethodState,
    manual_iban: PaymentMethodState,
  }),
});
export type DealerSettings = z.infer<typeof DealerSettings>;

export const settingsEndpoint = defineEndpoint({
  operation: 'getSettings',
  // Spec 4.13: method not shown. GET, as for the other parameterless reads (docs/spec-gaps.md).
  method: 'GET',
  path: '/settings',
  hash: 'basic',
  readOnly: true,
  params: NoParams,
  response: DealerSettings,
});
