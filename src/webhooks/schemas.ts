import * as z from 'zod/mini';
import { lenientObject, object, openEnum, responseBoolean, responseInteger, responseNumber, responseString } from '../internal/schema-blocks.js';
import type { LenientObject } from '../internal/schema-blocks.js';
import {
  CREDIT_CARD_CALLBACK_FIELDS,
  DEALER_CREDIT_CARD_CALLBACK_FIELDS,
  DEPOSIT_CALLBACK_FIELDS,
  UNKNOWN_CALLBACK_FIELDS,
  WITHDRAWAL_CALLBACK_FIELDS,
} from './payload.js';
import type { FieldSpec, FieldTable, FieldType } from './payload.js';
import { CREDIT_CARD_STATUSES, DEALER_CREDIT_CARD_STATUSES, DEPOSIT_STATUSES, WITHDRAWAL_STATUSES } from './kinds.js';
import type { CallbackKind } from './kinds.js';

/*
 * Bodies the service POSTs (spec 6), as zod schemas made from the field tables of payload.ts (the
 * fields and their docs live there). Lenient like every answer: unknown fields are kept, numbers
 * may arrive as numeric strings and text fields as numbers (PHP's JSON_NUMERIC_CHECK). Required
 * are the signed fields and what a receiver needs to act (amount); echo fields are optional, so
 * that a leaner body is still delivered rather than refused and lost. verifyCallback reads bodies
 * by the same tables without zod (payload.ts); a property test holds the two together.
 */

/**
 * Fields every callback body carries and the hash covers (spec 5.3), plus the body's copy of the
 * hash. verifyCallback reads them by hand before the signature check (src/webhooks/verify.ts),
 * with the same rules.
 */
export const SignedCallbackFields = /* @__PURE__ */ object(() => ({
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
export const DepositCallbackStatus = /* @__PURE__ */ openEnum(DEPOSIT_STATUSES);
export type DepositCallbackStatus = z.infer<typeof DepositCallbackStatus>;

/** End statuses of a withdrawal callback (spec 6.3). */
export const WithdrawalCallbackStatus = /* @__PURE__ */ openEnum(WITHDRAWAL_STATUSES);
export type WithdrawalCallbackStatus = z.infer<typeof WithdrawalCallbackStatus>;

/** Statuses of a provider card callback (spec 6.4). Note the spelling `cancelled`. */
export const CreditCardCallbackStatus = /* @__PURE__ */ openEnum(CREDIT_CARD_STATUSES);
export type CreditCardCallbackStatus = z.infer<typeof CreditCardCallbackStatus>;

/** Statuses of a dealer card callback (spec 6.5); an expired payment is reported as `failed`. */
export const DealerCreditCardCallbackStatus = /* @__PURE__ */ openEnum(DEALER_CREDIT_CARD_STATUSES);
export type DealerCreditCardCallbackStatus = z.infer<typeof DealerCreditCardCallbackStatus>;

// The schema of each field type of payload.ts, which its reader reads the same way; each
// built on first use.
const FIELD_SCHEMAS = {
  text: (): z.ZodMiniString => z.string(),
  status: (): z.ZodMiniString => z.string(),
  id: responseString,
  number: responseNumber,
  integer: responseInteger,
  boolean: responseBoolean,
} as const satisfies Record<FieldType, () => z.ZodMiniType>;

type FieldSchema<F extends FieldSpec, Status extends z.ZodMiniType> = F['type'] extends 'status' ? Status : ReturnType<(typeof FIELD_SCHEMAS)[F['type']]>;

/** The zod shape of a field table; homomorphic, so each field's doc comment carries over. */
type ShapeOf<T extends FieldTable, Status extends z.ZodMiniType> = {
  -readonly [K in keyof T]: T[K] extends { readonly optional: true } ? z.ZodMiniOptional<FieldSchema<T[K], Status>> : FieldSchema<T[K], Status>;
};

/**
 * The schema of a callback kind's body. Each exported schema is declared with it: inferred, its
 * type would be printed field by field into the declarations in dist/, without the field tables'
 * doc comments; named, the fields keep pointing at the tables (src/webhooks/payload.ts).
 */
export type CallbackSchema<T extends FieldTable, Status extends z.ZodMiniType> = LenientObject<ShapeOf<T, Status>>;

/** The lenient schema of a field table, its `status` typed by the kind's statuses; fields built on first use. */
// @__NO_SIDE_EFFECTS__
function callbackSchema<const T extends FieldTable, Status extends z.ZodMiniType>(fields: T, status: () => Status): LenientObject<ShapeOf<T, Status>> {
  return lenientObject(() => {
    const shape: Record<string, z.ZodMiniType> = {};
    for (const [key, field] of Object.entries(fields)) {
      const schema: z.ZodMiniType = field.type === 'status' ? status() : FIELD_SCHEMAS[field.type]();
      shape[key] = field.optional === true ? z.optional(schema) : schema;
    }
    return shape as ShapeOf<T, Status>;
  });
}

/** Body of a deposit callback (spec 6.2): manual, E-IBAN and third-party deposits. */
export const DepositCallback: CallbackSchema<typeof DEPOSIT_CALLBACK_FIELDS, typeof DepositCallbackStatus> = /* @__PURE__ */ callbackSchema(DEPOSIT_CALLBACK_FIELDS, () => DepositCallbackStatus);
export interface DepositCallback extends z.infer<typeof DepositCallback> {}

/**
 * Body of a withdrawal callback (spec 6.3). `iban` is optional: what crypto and wallet
 * withdrawals carry instead is not shown (spec 6.6), and any such field is kept.
 */
export const WithdrawalCallback: CallbackSchema<typeof WITHDRAWAL_CALLBACK_FIELDS, typeof WithdrawalCallbackStatus> = /* @__PURE__ */ callbackSchema(WITHDRAWAL_CALLBACK_FIELDS, () => WithdrawalCallbackStatus);
export interface WithdrawalCallback extends z.infer<typeof WithdrawalCallback> {}

/** Body of a provider card callback (spec 6.4). */
export const CreditCardCallback: CallbackSchema<typeof CREDIT_CARD_CALLBACK_FIELDS, typeof CreditCardCallbackStatus> = /* @__PURE__ */ callbackSchema(CREDIT_CARD_CALLBACK_FIELDS, () => CreditCardCallbackStatus);
export interface CreditCardCallback extends z.infer<typeof CreditCardCallback> {}

/**
 * Body of a dealer card callback (spec 6.5). Which fields a failure leaves out is not shown,
 * so everything but the signed fields is optional.
 */
export const DealerCreditCardCallback: CallbackSchema<typeof DEALER_CREDIT_CARD_CALLBACK_FIELDS, typeof DealerCreditCardCallbackStatus> = /* @__PURE__ */ callbackSchema(DEALER_CREDIT_CARD_CALLBACK_FIELDS, () => DealerCreditCardCallbackStatus);
export interface DealerCreditCardCallback extends z.infer<typeof DealerCreditCardCallback> {}

/**
 * Body of a callback whose tracking code has a prefix spec 2.1 does not list (the service added a
 * payment method): only the signed fields are typed, everything else is kept as sent. It reaches
 * the `'*'` handlers only.
 */
export const UnknownCallback: CallbackSchema<typeof UNKNOWN_CALLBACK_FIELDS, z.ZodMiniString> = /* @__PURE__ */ callbackSchema(UNKNOWN_CALLBACK_FIELDS, FIELD_SCHEMAS.text);
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
 * import type { VerifiedCallback } from 'payorch';
 * declare const callback: VerifiedCallback;
 * // Refunds the user and the amount of your order row: the hash covers neither of the callback's.
 * declare function refundOrder(trackingCode: string): void;
 * if (callback.kind === 'withdrawal' && callback.payload.status === 'rejected') refundOrder(callback.payload.tracking_code);
 * ```
 */
export type VerifiedCallback = (
  | { readonly kind: 'deposit'; readonly payload: DepositCallback }
  | { readonly kind: 'withdrawal'; readonly payload: WithdrawalCallback }
  | { readonly kind: 'creditCard'; readonly payload: CreditCardCallback }
  | { readonly kind: 'dealerCreditCard'; readonly payload: DealerCreditCardCallback }
  | { readonly kind: 'unknown'; readonly payload: UnknownCallback }
) & {
  /** Where it came from: a callback the service POSTed and signed. A status read by `receiver.reconcile` is `'status'` (`CardStatusRead`). */
  readonly source: 'callback';
  /**
   * Seconds between the signed timestamp and now: how long the delivery took, redeliveries
   * included. Negative (down to `-toleranceSeconds`) when the sender's clock is ahead of ours.
   */
  readonly ageSeconds: number;
};
