import * as z from 'zod/mini';
import { lenientObject, object, openEnum, responseBoolean, responseInteger, responseNumber, responseString } from '../core/schema-blocks.js';
import { CALLBACK_STATUSES } from './kinds.js';
import type { CallbackKind } from './kinds.js';

/*
 * Bodies the service POSTs (spec 6). Lenient like every answer: unknown fields are kept, numbers
 * may arrive as numeric strings and text fields as numbers (PHP's JSON_NUMERIC_CHECK). Required are the signed fields (tracking_code, status,
 * timestamp, hash) and what a receiver needs to act (amount); echo fields are optional, so that
 * a leaner body is still delivered rather than refused and lost.
 */

/**
 * Fields every callback body carries and the hash covers (spec 5.3), plus the body's copy of the
 * hash: the fields every kind's schema shares. verifyCallback reads them by hand before the
 * signature check (src/callbacks/verify.ts, `readSignedFields`), with the same rules.
 */
export const SignedCallbackFields = object(() => ({
  /** The record's tracking code; the hash covers it (spec 5.3, 6). Its prefix tells the kind of record (spec 2.1). */
  tracking_code: z.string(),
  /** The end status; the hash covers it (spec 5.3, 6). */
  status: z.string(),
  /** Unix seconds; a numeric string is accepted and converted. */
  timestamp: responseInteger(),
  /** The same value as X-Hash. */
  hash: z.string(),
}));
export interface SignedCallbackFields extends z.infer<typeof SignedCallbackFields> {}

/** End statuses of a deposit callback (spec 6.2). `failed` is listed because the third-party text names it (spec 6.6). */
export const DepositCallbackStatus = openEnum(CALLBACK_STATUSES.deposit);
export type DepositCallbackStatus = z.infer<typeof DepositCallbackStatus>;

/** End statuses of a withdrawal callback (spec 6.3). */
export const WithdrawalCallbackStatus = openEnum(CALLBACK_STATUSES.withdrawal);
export type WithdrawalCallbackStatus = z.infer<typeof WithdrawalCallbackStatus>;

/** Statuses of a provider card callback (spec 6.4). Note the spelling `cancelled`. */
export const CreditCardCallbackStatus = openEnum(CALLBACK_STATUSES.creditCard);
export type CreditCardCallbackStatus = z.infer<typeof CreditCardCallbackStatus>;

/** Statuses of a dealer card callback (spec 6.5); an expired payment is reported as `failed`. */
export const DealerCreditCardCallbackStatus = openEnum(CALLBACK_STATUSES.dealerCreditCard);
export type DealerCreditCardCallbackStatus = z.infer<typeof DealerCreditCardCallbackStatus>;

// Read inside the shapes, so that the fields are built with the first callback schema that needs them.
const signed = () => SignedCallbackFields.shape;

// The fields of deposit and withdrawal callbacks, in the order of spec 6.2.
const providerTransaction = <S extends z.ZodMiniType>(status: S) => ({
  /** The record's tracking code; the hash covers it (spec 5.3, 6). Its prefix tells the kind of record (spec 2.1). */
  tracking_code: signed().tracking_code,
  /** The service's internal transaction id. */
  tx_id: z.optional(responseString()),
  /** The end status; the hash covers it (spec 5.3, 6.2, 6.3). */
  status,
  /** The final approved or rejected amount: compare it with your record, the hash does not cover it. */
  amount: responseNumber(),
  /** The customer's username (spec 6.2). */
  username: z.optional(responseString()),
  /** The customer's full name (spec 6.2). */
  fullname: z.optional(responseString()),
  /** The customer's identifier in your system (spec 6.2). */
  user_id: z.optional(responseString()),
  /** The site's id, an integer (spec 6.2). */
  site_id: z.optional(responseInteger()),
  /** Unix seconds; the hash covers it (spec 5.3). The value that verified. */
  timestamp: signed().timestamp,
  /** The body's hash, the same value as X-Hash (spec 5.3). */
  hash: signed().hash,
});

/** Body of a deposit callback (spec 6.2): manual, E-IBAN and third-party deposits. */
export const DepositCallback = lenientObject(() => providerTransaction(DepositCallbackStatus));
export interface DepositCallback extends z.infer<typeof DepositCallback> {}

/**
 * Body of a withdrawal callback (spec 6.3). `iban` is optional: what crypto and wallet
 * withdrawals carry instead is not shown (spec 6.6), and any such field is kept.
 */
export const WithdrawalCallback = lenientObject(() => ({
  ...providerTransaction(WithdrawalCallbackStatus),
  /** The recipient's IBAN (manual, E-IBAN and bank withdrawals). */
  iban: z.optional(responseString()),
}));
export interface WithdrawalCallback extends z.infer<typeof WithdrawalCallback> {}

const cardFailure = () => ({
  /** The failure's code; only when the payment failed (spec 6.4, 6.5). */
  error_code: z.optional(responseString()),
  /** The failure's text; only when the payment failed (spec 6.4, 6.5). */
  error_message: z.optional(responseString()),
});

/** Body of a provider card callback (spec 6.4). */
export const CreditCardCallback = lenientObject(() => ({
  /** The record's tracking code; the hash covers it (spec 5.3, 6). Its prefix tells the kind of record (spec 2.1). */
  tracking_code: signed().tracking_code,
  /** The payment gateway's order id. */
  order_id: z.optional(responseString()),
  /** `success`, `failed` or `cancelled`; the hash covers it (spec 5.3, 6.4). */
  status: CreditCardCallbackStatus,
  /** The amount, a number (spec 6); compare it with your record: the hash does not cover it. */
  amount: responseNumber(),
  /** The currency: `TRY` (spec 6.4). */
  currency: z.optional(responseString()),
  /** The customer's username (spec 6.2). */
  username: z.optional(responseString()),
  /** The customer's identifier in your system (spec 6.2). */
  user_id: z.optional(responseString()),
  /** The site's id, an integer (spec 6.2). */
  site_id: z.optional(responseInteger()),
  /** The customer's name (spec 6.4). */
  customer_name: z.optional(responseString()),
  /** The customer's email address (spec 6.4). */
  customer_email: z.optional(responseString()),
  /** Unix seconds; the hash covers it (spec 5.3). The value that verified. */
  timestamp: signed().timestamp,
  /** The body's hash, the same value as X-Hash (spec 5.3). */
  hash: signed().hash,
  ...cardFailure(),
}));
export interface CreditCardCallback extends z.infer<typeof CreditCardCallback> {}

/**
 * Body of a dealer card callback (spec 6.5). Which fields a failure leaves out is not shown,
 * so everything but the signed fields is optional.
 */
export const DealerCreditCardCallback = lenientObject(() => ({
  /** Whether the payment succeeded (spec 6.5). */
  success: z.optional(responseBoolean()),
  /** The record's tracking code; the hash covers it (spec 5.3, 6). Its prefix tells the kind of record (spec 2.1). */
  tracking_code: signed().tracking_code,
  /** The payment gateway's order id (spec 6.4, 6.5). */
  order_id: z.optional(responseString()),
  /** `success` or `failed` (an expired payment is reported as `failed`); the hash covers it (spec 5.3, 6.5). */
  status: DealerCreditCardCallbackStatus,
  /** The amount, a number (spec 6); compare it with your record: the hash does not cover it. */
  amount: z.optional(responseNumber()),
  /** The currency: `TRY` (spec 6.4). */
  currency: z.optional(responseString()),
  /** The customer's name (spec 6.4). */
  customer_name: z.optional(responseString()),
  /** The customer's email address (spec 6.4). */
  customer_email: z.optional(responseString()),
  /** The customer's phone number (spec 6.5). */
  customer_phone: z.optional(responseString()),
  /** Text about the status (spec 6.5). */
  status_message: z.optional(responseString()),
  /** When the payment completed, ISO 8601 (spec 6.5). */
  completed_at: z.optional(responseString()),
  /** Unix seconds; the hash covers it (spec 5.3). The value that verified. */
  timestamp: signed().timestamp,
  /** The body's hash, the same value as X-Hash (spec 5.3). */
  hash: signed().hash,
  ...cardFailure(),
}));
export interface DealerCreditCardCallback extends z.infer<typeof DealerCreditCardCallback> {}

/**
 * Body of a callback whose tracking code has a prefix spec 2.1 does not list (the service added a
 * payment method): only the signed fields are typed, everything else is kept as sent. It reaches
 * the `'*'` handlers only.
 */
export const UnknownCallback = lenientObject(() => ({
  /** The record's tracking code; the hash covers it (spec 5.3, 6). Its prefix tells the kind of record (spec 2.1). */
  tracking_code: signed().tracking_code,
  /** The end status; the hash covers it (spec 5.3, 6). */
  status: z.string(),
  /** Every kind of spec 6 carries one; not required of a kind nobody has described. */
  amount: z.optional(responseNumber()),
  /** Unix seconds; the hash covers it (spec 5.3). The value that verified. */
  timestamp: signed().timestamp,
  /** The body's hash, the same value as X-Hash (spec 5.3). */
  hash: signed().hash,
}));
export interface UnknownCallback extends z.infer<typeof UnknownCallback> {}

/**
 * The body schema of each callback kind. `satisfies` makes a kind added to kinds.ts a compile
 * error here until it has a schema, and the tests enumerate this table. @internal
 */
export const CALLBACK_SCHEMAS = {
  deposit: DepositCallback,
  withdrawal: WithdrawalCallback,
  creditCard: CreditCardCallback,
  dealerCreditCard: DealerCreditCardCallback,
} as const satisfies Record<CallbackKind, z.ZodMiniType>;

/**
 * A verified callback: narrow on `kind` to get the payload's type. The payload types list the
 * spec's fields only; `null` in an optional field reads as `undefined`, and a field the spec does
 * not list is kept: read it as `(callback.payload as Record<string, unknown>)['new_field']`.
 * `payload.timestamp` and `payload.hash` are the values that verified (X-Timestamp or the body's
 * timestamp, X-Hash), not unsigned copies. `kind: 'unknown'` is a tracking code prefix spec 2.1
 * does not list.
 *
 * @example
 * ```ts
 * if (callback.kind === 'withdrawal' && callback.payload.status === 'rejected') refund(callback.payload);
 * ```
 */
export type VerifiedCallback = (
  | { readonly kind: 'deposit'; readonly payload: DepositCallback }
  | { readonly kind: 'withdrawal'; readonly payload: WithdrawalCallback }
  | { readonly kind: 'creditCard'; readonly payload: CreditCardCallback }
  | { readonly kind: 'dealerCreditCard'; readonly payload: DealerCreditCardCallback }
  | { readonly kind: 'unknown'; readonly payload: UnknownCallback }
) & {
  /**
   * Seconds between the signed timestamp and now: how long the delivery took, redeliveries
   * included. Negative (down to `-toleranceSeconds`) when the sender's clock is ahead of ours.
   */
  readonly ageSeconds: number;
};
