import * as z from 'zod/mini';
import type { APIPromise } from '../core/api-promise.js';
import { defineEndpoint } from '../internal/endpoint.js';
import { requestAmount, requiredString, responseNumber, responseString, strictObject } from '../internal/schema-blocks.js';
import type { RequestOptions } from '../core/request-options.js';
import { envelope } from '../internal/shared-shapes.js';
import { APIResource } from '../internal/resource.js';

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

/** Dealer card payments (spec 4.13); the credit card method must be active for the dealer. */
export class DealerCreditCard extends APIResource {
  /**
   * Creates a card payment; redirect the customer to `data.payment_url`. The result arrives by
   * credit card callback, keyed by `data.tracking_code`. Not retried after an ambiguous failure.
   *
   * @example
   * ```ts
   * import type { DealerClient } from 'payorch';
   * declare const dealer: DealerClient;
   * declare function redirect(url: string): void; // your framework's
   * const { data } = await dealer.creditCard.createPayment({
   *   username: 'ada', firstname: 'Ada', lastname: 'Yılmaz', email: 'ada@example.com', phone: '+905551112233', amount: 450,
   * });
   * redirect(data.payment_url);
   * ```
   */
  createPayment(params: DealerCardPaymentParams, options?: RequestOptions): APIPromise<DealerCardPayment> {
    return this._send(dealerCardPaymentEndpoint, params, options);
  }
}
