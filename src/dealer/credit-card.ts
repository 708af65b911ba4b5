import * as z from 'zod/mini';
import { defineEndpoint } from '../internal/endpoint.js';
import { requestAmount, requiredString, responseNumber, responseString, strictObject } from '../internal/schema-blocks.js';
import { envelope } from '../internal/shared-shapes.js';

/** Body of a dealer card payment (spec 4.13): at least 200 TRY. */
export const DealerCardPaymentParams = /* @__PURE__ */ strictObject(() => ({
  /** The customer's username. Required, not blank (spec 4.13). */
  username: requiredString(),
  /** The cardholder's first name. Required, not blank (spec 4.13). */
  firstname: requiredString(),
  /** The cardholder's last name. Required, not blank (spec 4.13). */
  lastname: requiredString(),
  /** The customer's email address. Required, not blank (spec 4.13). */
  email: requiredString(),
  /** The customer's phone number. Required, not blank (spec 4.13). */
  phone: requiredString(),
  /** The amount in TRY, a JSON number. Required; at least 200 (spec 4.13, 8). */
  amount: requestAmount(200),
  /** Free text shown with the payment. Optional (spec 4.13). */
  description: z.optional(z.string()),
}));
export type DealerCardPaymentParams = z.input<typeof DealerCardPaymentParams>;

/** A created dealer card payment: redirect the customer to `data.payment_url` (spec 2.7). */
export const DealerCardPayment = /* @__PURE__ */ envelope(() => ({
  /** The card payment's tracking code; the dealer card callback carries the same one (spec 2.7, 6.5). */
  tracking_code: z.string(),
  /** The card payment page (URL) the customer is redirected to (spec 2.7). */
  payment_url: z.string(),
  /** The service's internal order id; a numeric one is kept as text (spec 2.7). */
  order_id: z.optional(responseString()),
  /** The amount in TRY, a number; at least 200 (spec 2.7, 8). */
  amount: responseNumber(),
  /** The currency: `TRY` (spec 2.7). */
  currency: z.optional(z.string()),
}));
export interface DealerCardPayment extends z.infer<typeof DealerCardPayment> {}

export const dealerCardPaymentEndpoint = /* @__PURE__ */ defineEndpoint({
  operation: 'creditCard.createPayment',
  // Spec 4.13: method not shown. POST, as the provider's card payment (docs/spec-gaps.md).
  method: 'POST',
  path: '/credit-card/payment',
  hash: 'basic',
  resendable: false,
  params: DealerCardPaymentParams,
  response: DealerCardPayment,
});
