import * as z from 'zod/mini';
import { defineEndpoint } from '../internal/endpoint.js';
import { lenientObject, openEnum, requestAmount, requiredString, responseNumber, responseString, strictObject, successFlag } from '../internal/schema-blocks.js';
import { envelope } from '../internal/shared-shapes.js';

/** States of a provider card payment (spec 3.1). */
export const CardPaymentStatus = /* @__PURE__ */ openEnum(['pending', 'success', 'failed', 'cancelled', 'refunded']);
export type CardPaymentStatus = z.infer<typeof CardPaymentStatus>;

/** Body of a provider card payment (spec 4.8). `credential_key` is filled from the client when left out. */
export const CardPaymentParams = /* @__PURE__ */ strictObject(() => ({
  /** The site credential key, sent in the body (spec 5.1 rule 2). Required on the wire; taken from the client's `credentialKey` when left out. */
  credential_key: requiredString(),
  /** The customer's username on your site. Required, not blank (spec 4.8). */
  username: requiredString(),
  /** The customer's identifier in your system. Required, not blank (spec 4.8). */
  user_id: requiredString(),
  /** The cardholder's first name. Required, not blank (spec 4.8). */
  firstname: requiredString(),
  /** The cardholder's last name. Required, not blank (spec 4.8). */
  lastname: requiredString(),
  /** The customer's email address. Optional (spec 4.8). */
  email: z.optional(z.string()),
  /** The customer's phone number. Optional (spec 4.8). */
  phone: z.optional(z.string()),
  /** The amount in TRY, a JSON number. Required; at least 1 (spec 4.8, 8). */
  amount: requestAmount(1),
  /** Free text shown with the payment. Optional (spec 4.8). */
  description: z.optional(z.string()),
}));
/** What a caller passes to `createPayment()`: `credential_key` may be left to the client. */
export type CardPaymentParams = Omit<z.input<typeof CardPaymentParams>, 'credential_key'> & {
  /** The site credential key, sent in the body (spec 5.1 rule 2). Optional here: the client's `credentialKey` fills it. */
  credential_key?: string;
};

/** Body of a card status query (spec 4.9). */
export const CardPaymentStatusParams = /* @__PURE__ */ strictObject(() => ({
  /** The `tracking_code` of the card payment (`CC-...`), from `createPayment()`. Required (spec 4.9). */
  tracking_code: requiredString(),
}));
export type CardPaymentStatusParams = z.input<typeof CardPaymentStatusParams>;

/** A created card payment: redirect the customer to `data.payment_url` (spec 2.6). */
export const CardPayment = /* @__PURE__ */ envelope(() => ({
  /** The card payment's tracking code, `CC-...` (spec 2.1); pass it to `getStatus()`. The card callback carries the same code. */
  tracking_code: z.string(),
  /** The card payment page (URL) to redirect the customer to (spec 2.6). */
  payment_url: z.string(),
  // The gateway's order id: a numeric one is kept as text, not rejected.
  /** The payment gateway's order id, a string (spec 2.6). */
  order_id: z.optional(responseString()),
  /** The amount in TRY, a number; at least 1 (spec 2.6, 8). */
  amount: responseNumber(),
  /** The currency: `TRY` (spec 2.6). */
  currency: z.optional(z.string()),
}));
export interface CardPayment extends z.infer<typeof CardPayment> {}

/** The status of a card payment (spec 2.6, 4.9). */
export const CardPaymentStatusResult = /* @__PURE__ */ lenientObject(() => ({
  /** `true` when the call succeeded (spec 2.1). */
  success: successFlag(),
  /** Human-readable text about the result (spec 2.1). */
  message: z.optional(z.string()),
  /** The card payment (spec 2.6). */
  data: lenientObject(() => ({
    /** The card payment's tracking code, `CC-...` (spec 2.1); pass it to `getStatus()`. The card callback carries the same code. */
    tracking_code: z.string(),
    /** The payment gateway's order id, a string (spec 2.6). */
    order_id: z.optional(responseString()),
    /** The payment's status: `pending`, `success`, `failed`, `cancelled` or `refunded` (spec 3). */
    status: CardPaymentStatus,
    /** The amount in TRY, a number; at least 1 (spec 2.6, 8). */
    amount: responseNumber(),
    /** The currency: `TRY` (spec 2.6). */
    currency: z.optional(z.string()),
    /** The customer's username, as sent (spec 2.6). */
    username: z.optional(responseString()),
    /** The customer's identifier in your system, as sent (spec 2.6). */
    user_id: z.optional(responseString()),
    /** When the payment was created: ISO 8601 with UTC offset, e.g. `2026-03-01T14:05:00+00:00` (spec 2.6). */
    created_at: z.optional(z.string()),
    /** When the payment last changed: ISO 8601 with UTC offset, e.g. `2026-03-01T14:07:00+00:00` (spec 2.6). */
    updated_at: z.optional(z.string()),
  })),
}));
export interface CardPaymentStatusResult extends z.infer<typeof CardPaymentStatusResult> {}

export const cardPaymentEndpoint = /* @__PURE__ */ defineEndpoint({
  operation: 'creditCard.createPayment',
  method: 'POST',
  path: '/credit-card/payment',
  hash: 'basic',
  resendable: false,
  params: CardPaymentParams,
  response: CardPayment,
});

export const cardStatusEndpoint = /* @__PURE__ */ defineEndpoint({
  operation: 'creditCard.getStatus',
  method: 'POST',
  path: '/credit-card/status',
  // Spec 5.1 rule 5: not shown. The basic hash, as for card payments (docs/spec-gaps.md).
  hash: 'basic',
  resendable: true,
  params: CardPaymentStatusParams,
  response: CardPaymentStatusResult,
});
