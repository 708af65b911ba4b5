import * as z from 'zod/mini';
import { lenientObject, openEnum, requestAmount, requiredString, responseInteger, responseNumber, responseString } from '../internal/schema-blocks.js';

/** The customer as answers embed it (spec 2.3). Echoed values sent back as numbers are kept as their text. */
export const Customer = /* @__PURE__ */ lenientObject(() => ({
  /** The customer's full name, as sent in the request (spec 2.3). */
  fullname: responseString(),
  /** The customer's username on your site, as sent in the request (spec 2.3). */
  username: responseString(),
  /** The customer's identifier in your system, as a string (spec 2.3). */
  user_id: responseString(),
}));
export interface Customer extends z.infer<typeof Customer> {}

/** The site a record belongs to, as answers embed it (spec 2.4). */
export const SiteRef = /* @__PURE__ */ lenientObject(() => ({
  /** The site's id, an integer (spec 2.2). */
  id: responseInteger(),
  /** The site's name (spec 2.2). */
  name: z.string(),
}));
export interface SiteRef extends z.infer<typeof SiteRef> {}

/** States of a provider deposit (spec 3.1). `failed` is listed because the third-party text names it (spec 6.6). */
export const DepositStatus = /* @__PURE__ */ openEnum(['showing', 'completed', 'canceled', 'expired', 'failed']);
export type DepositStatus = z.infer<typeof DepositStatus>;

/** States of a provider withdrawal (spec 3.1). */
export const WithdrawalStatus = /* @__PURE__ */ openEnum(['pending', 'showing', 'completed', 'rejected', 'failed', 'canceled']);
export type WithdrawalStatus = z.infer<typeof WithdrawalStatus>;

/*
 * The shared blocks below have named shape types holding their fields' doc comments: a block's
 * fields spread into a schema of another file would otherwise be printed into that schema's
 * declaration in dist/ without them (test/docs/hover.test.ts). Type literals, not interfaces: only
 * they fit zod's shape constraint.
 */

/**
 * Fields every provider payment request carries about the customer, in the order of spec 2.3.
 * Bodies are sent in schema order, so the bytes do not depend on the caller's key order.
 */
export type CustomerParamsShape = {
  /** The customer's full name. Required, not blank (spec 2.3). */
  readonly fullname: z.ZodMiniString<string>;
  /** The customer's username on your site. Required, not blank (spec 2.3). */
  readonly username: z.ZodMiniString<string>;
  /** The customer's identifier in your system (a string, even when numeric). Required, not blank (spec 2.3). */
  readonly user_id: z.ZodMiniString<string>;
};

export const customerParams = (): CustomerParamsShape => ({
  fullname: requiredString(),
  username: requiredString(),
  user_id: requiredString(),
});

/** The amount of a deposit or withdrawal request, with the spec's minimum of 1 (spec 8). */
export type PaymentAmountShape = {
  /** The amount in TRY, a JSON number. Required; at least 1 (spec 4.1, 8). */
  readonly amount: z.ZodMiniNumber<number>;
};

/**
 * A deposit or withdrawal request. An intersection of named parts only: inside another
 * intersection it is flattened, and an unnamed part would be printed without its docs.
 */
export type PaymentParamsShape = CustomerParamsShape & PaymentAmountShape;

export const paymentParams = (): PaymentParamsShape => ({
  ...customerParams(),
  amount: requestAmount(1),
});

/** A gateway id: a positive integer from `gateways.list()` (spec 2.5). */
// @__NO_SIDE_EFFECTS__
export function gatewayId() {
  return z.number().check(z.int({ error: 'must be an integer' }), z.positive({ error: 'must be positive' }));
}

/** Fields every provider transaction record has (spec 2.4). */
export type RecordCoreShape = {
  /** The record's tracking code: prefix, alphanumeric segment and Unix seconds, e.g. `MAN-A1B2C3-1700000000`; prefixes MAN, WIT, EIBAN, EIBAN-WIT, TPBD/TPBW, TPCD/TPCW, TPWD/TPWW (spec 2.1). The callback for this record carries the same code. */
  readonly tracking_code: z.ZodMiniString<string>;
  /** The amount in TRY, a number (spec 2.4). On a deposit the customer may change it on the payment page; the callback carries the final amount. */
  readonly amount: ReturnType<typeof responseNumber>;
};

export const recordCore = (): RecordCoreShape => ({
  tracking_code: z.string(),
  amount: responseNumber(),
});

/** Fields some records echo back (spec 2.4); optional so that a leaner answer still parses. */
export type RecordEchoShape = {
  /** The site the record belongs to, `{ id, name }` (spec 2.2). Manual, E-IBAN and third-party bank records only (spec 2.4). */
  readonly site: z.ZodMiniOptional<typeof SiteRef>;
  /** The customer as sent: `{ fullname, username, user_id }` (spec 2.3). Manual, E-IBAN and third-party bank records only (spec 2.4). */
  readonly customer: z.ZodMiniOptional<typeof Customer>;
  /** When the record expires, `YYYY-MM-DD HH:MM:SS` in service time. Deposits (manual, E-IBAN, third-party bank and crypto) and third-party bank withdrawals (spec 2.4); the lifetime is not stated (spec 8). */
  readonly expires_at: z.ZodMiniOptional<z.ZodMiniString<string>>;
  /** When the record was created, `YYYY-MM-DD HH:MM:SS` in service time. Manual and third-party bank deposits and withdrawals (spec 2.4). */
  readonly created_at: z.ZodMiniOptional<z.ZodMiniString<string>>;
};

export const recordEcho = (): RecordEchoShape => ({
  site: z.optional(SiteRef),
  customer: z.optional(Customer),
  expires_at: z.optional(z.string()),
  created_at: z.optional(z.string()),
});

/** The status of a deposit record (spec 3): written once for every provider deposit. */
export type DepositStatusShape = {
  /** The deposit's status: `showing` on creation; `completed`, `canceled` or `expired` arrive by deposit callback (spec 3, 6.2). */
  readonly status: typeof DepositStatus;
};

export const depositStatus = (): DepositStatusShape => ({ status: DepositStatus });

/** What a manual or E-IBAN withdrawal record adds to the core and echoed fields. */
export type IbanWithdrawalShape = {
  /** The recipient's IBAN as sent, 15 to 34 characters (spec 2.4, 4.6). Withdrawals only. */
  readonly iban: z.ZodMiniOptional<z.ZodMiniString<string>>;
  /** The withdrawal's status: `pending` on creation; `completed`, `rejected`, `failed` or `canceled` arrive by withdrawal callback (spec 3, 6.3). */
  readonly status: typeof WithdrawalStatus;
};

/** A manual or E-IBAN withdrawal record: the same fields for both (spec 2.4, 4.6, 4.7). */
export type IbanWithdrawalRecordShape = RecordCoreShape & RecordEchoShape & IbanWithdrawalShape;

export const ibanWithdrawalRecord = (): IbanWithdrawalRecordShape => ({
  ...recordCore(),
  ...recordEcho(),
  iban: z.optional(z.string()),
  status: WithdrawalStatus,
});
